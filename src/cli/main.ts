import { NH_GATE_VERSION } from '../version.js';
import { Command, CommanderError } from 'commander';
import { register as analyze } from './commands/analyze.js';
import { register as validate } from './commands/validate.js';
import { register as build } from './commands/build.js';
import { register as a3 } from './commands/a3.js';
import { register as ab } from './commands/ab.js';
import { register as busy } from './commands/busy.js';
import { register as mutate } from './commands/mutate.js';
import { register as golden } from './commands/golden.js';
import { register as probe } from './commands/probe.js';
import { register as history } from './commands/history.js';
import { register as serve } from './commands/serve.js';
import { EXIT_CODES } from './exit.js';
import { quietOnClosedPipe } from './pipe.js';
import { cliMode, noteArgv, printErrorJson } from './output.js';

// The parser alone, exported so tests check parsed options without spawning a process.
export function createProgram(): Command {
  const program = new Command('nh-gate')
    .description('Benchmark and A/B gate harness for native LLM inference engines: every number with its terms, or a named refusal.')
    .version(NH_GATE_VERSION)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  for (const reg of [a3, ab, busy, serve, build, mutate, analyze, validate, golden, probe, history]) reg(program);
  return program;
}

// Entry point of bin/nh-gate.js.
export async function main(argv: string[]): Promise<void> {
  noteArgv(argv);
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  const program = createProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
      process.exitCode = ok ? 0 : EXIT_CODES.usage;
      if (!ok && cliMode.json) printErrorJson('USAGE', err.message.replace(/^error: /, ''), 'see nh-gate --help', 'usage', EXIT_CODES.usage);
      return;
    }
    throw err;
  }
}
