import type { ExitClass } from '../verdict/words.js';

// The version of every JSON document the CLI prints (result documents carry their own, the same value).
export const CLI_SCHEMA_VERSION = 1;

// Whether this invocation asked for --json, and for which command: set once from argv by main, so an
// error raised anywhere (a usage mistake included) still prints one JSON document on stdout.
export const cliMode = { json: false, command: null as string | null };

// Sets cliMode from the raw argv (before commander parses it, so its own usage errors are covered).
export function noteArgv(argv: readonly string[]): void {
  const args = argv.slice(2);
  cliMode.json = args.includes('--json');
  cliMode.command = args.find((a) => !a.startsWith('-')) ?? null;
}

// Prints a command's JSON document: one object on stdout, always with schemaVersion and the command.
export function printJson(doc: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify({ schemaVersion: CLI_SCHEMA_VERSION, command: cliMode.command, ...doc }, null, 2) + '\n');
}

// The document an error prints under --json: its stable code, message, fix and the exit code.
export function printErrorJson(code: string, message: string, fix: string | null, exitClass: ExitClass, exitCode: number): void {
  printJson({ ok: false, error: { code, message, fix }, exitClass, exitCode });
}
