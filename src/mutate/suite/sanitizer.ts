// What a sanitizer said in a suite's output: AddressSanitizer and LeakSanitizer print
// `==PID==ERROR: AddressSanitizer: heap-buffer-overflow on address …`, UndefinedBehaviorSanitizer
// `file.cpp:12:5: runtime error: index 5 out of bounds …`; each closes with
// `SUMMARY: AddressSanitizer: heap-buffer-overflow file.cpp:12 in fn`, which names the line.
const REPORT = /(?:ERROR: (?:Address|Leak|Thread|Memory)Sanitizer: .*|runtime error: .*)$/;
const SUMMARY = /^SUMMARY: \w+Sanitizer: (.*)$/;

// The sanitizer's first report and its summary line, or null when no sanitizer spoke. Pure over the lines.
export function sanitizerFinding(lines: readonly string[]): string | null {
  let first: string | null = null;
  for (const line of lines) {
    const r = first === null ? REPORT.exec(line) : null;
    if (r) first = line.trim().replace(/^==\d+==/, '').slice(0, 240);
    const s = SUMMARY.exec(line);
    if (s) return `${first ?? s[0]}${first ? ` (${s[1]!.trim().slice(0, 200)})` : ''}`;
  }
  return first;
}
