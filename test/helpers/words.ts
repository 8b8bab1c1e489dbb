// A shell-free split of a documented command line that keeps "double quoted" words together (the docs quote
// --oracle-cmd): the docs' examples are run without a shell.
export function splitWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}
