import type { Command } from 'commander';
import { runAction } from '../run.js';
import { NhGateError } from '../../errors.js';

interface CaptureFlags {
  recipe: string; preset: string; name?: string; checkpoint?: string; expectSha256?: string; prompts?: string;
  maxNew: string; runs: string; nearTieNats: string; crossCheck: boolean; root: string; json?: boolean;
  oracleCmd?: string; promptIds?: string; oracleTimeout: string;
}

// Registers `nh-gate golden capture | import | export | accept | show`: goldens change only through capture → review → accept.
export function register(program: Command): void {
  const golden = program.command('golden').description('capture goldens from the float64 oracle, review them, accept them (never silently)');

  golden
    .command('capture')
    .description('run an oracle (nh-ref\'s float64 one, --oracle-cmd PROGRAM, or the recipe\'s engine) K times and STAGE a golden with a review diff against the committed one')
    .option('--recipe <name>', "nh-ref recipes: the build that provides nh-ref-ckpt; a recipe with driver.oracleArgv: the engine as its own (regression) oracle", 'nh-ref')
    .option('--preset <name>', 'checkpoint preset (tiny, medium)', 'tiny')
    .option('--name <name>', 'golden name (default <recipe>-<preset>)')
    .option('--checkpoint <file>', 'use this checkpoint instead of generating one with the engine\'s nh-ref-ckpt')
    .option('--expect-sha256 <hex>', 'refuse the checkpoint unless its content sha256 is this')
    .option('--prompts <file>', 'JSON array of strings, or one prompt per line (default: the fixed nh-ref prompt set)')
    .option('--max-new <n>', 'tokens generated per prompt', '32')
    .option('--runs <k>', 'repeated oracle runs for the determinism evidence', '3')
    .option('--near-tie-nats <x>', 'margin at or below which the golden licenses a NEAR-TIE PASS', '0.001')
    .option('--no-cross-check', 'skip the fresh-prefill cross-check run')
    .option('--root <dir>', 'repository root holding goldens/ and .nh-gate/', process.cwd())
    .option('--oracle-cmd <cmd>', 'any oracle speaking the oracle protocol (docs/engines.md): "PROGRAM ARGS…", split on spaces, no shell')
    .option('--prompt-ids <file>', 'prompts as token ids (JSON array of id arrays or {id, promptTokens} objects): required with --oracle-cmd or an engine-oracle recipe')
    .option('--oracle-timeout <seconds>', 'per oracle run', '600')
    .option('--json', 'print one JSON document on stdout')
    .action((o: CaptureFlags) => runAction(async () => {
      const [{ runCapture }, io, proto] = await Promise.all([import('../../oracle/run-golden.js'), import('../../oracle/io.js'), import('../../oracle/run-protocol.js')]);
      const route = proto.captureRoute(o.oracleCmd ?? null, o.recipe, o.root);
      if (route !== 'nh-ref') {
        if (!o.promptIds) throw new NhGateError('USAGE', `golden capture ${route === 'oracle-cmd' ? '--oracle-cmd' : `--recipe ${o.recipe}`} needs the prompts as token ids`, 'pass --prompt-ids FILE (a JSON array of token-id arrays)');
        if (!o.name) throw new NhGateError('USAGE', 'golden capture through the oracle protocol needs --name', 'pass --name NAME (e.g. llama-cpp-tiny)');
        return proto.runProtocolCapture({
          root: o.root, name: o.name, oracleArgv: route === 'oracle-cmd' ? proto.splitOracleCmd(o.oracleCmd!) : null, recipe: route === 'oracle-cmd' ? null : o.recipe,
          promptIdsFile: o.promptIds, maxNew: io.positiveInt('--max-new', o.maxNew), runs: io.positiveInt('--runs', o.runs),
          nearTieNats: io.nonNegativeNumber('--near-tie-nats', o.nearTieNats), timeoutS: io.positiveInt('--oracle-timeout', o.oracleTimeout), json: o.json === true,
        });
      }
      return runCapture({
        root: o.root, recipe: o.recipe, preset: o.preset, name: o.name ?? `${o.recipe}-${o.preset}`,
        checkpoint: o.checkpoint ?? null, expectSha256: o.expectSha256 ?? null, promptsFile: o.prompts ?? null,
        maxNew: io.positiveInt('--max-new', o.maxNew), runs: io.positiveInt('--runs', o.runs),
        nearTieNats: io.nonNegativeNumber('--near-tie-nats', o.nearTieNats), crossCheck: o.crossCheck, json: o.json === true,
      });
    }));

  golden
    .command('import <file>')
    .description("STAGE a golden from an engine's own golden file (kept byte for byte beside it); review, then accept")
    .option('--format <format>', 'the file\'s format: vllm-cpp-oracle (tests/parity/goldens/<name>/oracle.json of mudler/vllm.cpp)')
    .option('--name <name>', 'golden name (default: the directory name of an oracle.json, else the file name)')
    .option('--root <dir>', 'repository root holding goldens/ and .nh-gate/', process.cwd())
    .option('--json', 'print one JSON document on stdout')
    .action((file: string, o: { format?: string; name?: string; root: string; json?: boolean }) => runAction(async () => {
      const { runImport } = await import('../../oracle/run-import.js');
      return runImport({ root: o.root, file, format: o.format, name: o.name, json: o.json === true });
    }));

  golden
    .command('export <name>')
    .description("write the file an engine's driver reads for a golden: the imported original, or one written in that format")
    .option('--format <format>', 'vllm-cpp-oracle')
    .requiredOption('--out <file>', 'where to write it')
    .option('--root <dir>', 'repository root holding goldens/', process.cwd())
    .option('--json', 'print one JSON document on stdout')
    .action((name: string, o: { format?: string; out: string; root: string; json?: boolean }) => runAction(async () => {
      const { runExport } = await import('../../oracle/run-import.js');
      return runExport({ root: o.root, golden: name, format: o.format, out: o.out, json: o.json === true });
    }));

  golden
    .command('accept <name>')
    .description('move the staged golden into goldens/<name>/ (the only way a committed golden changes)')
    .option('--root <dir>', 'repository root', process.cwd())
    .option('--json', 'print one JSON document on stdout')
    .action((name: string, o: { root: string; json?: boolean }) => runAction(async () => {
      const { runAccept } = await import('../../oracle/run-golden.js');
      return runAccept(o.root, name, o.json === true);
    }));

  golden
    .command('show <name>')
    .description('provenance and smallest top-2 margins of a committed (or --staged) golden')
    .option('--staged', 'show the staged capture instead of the committed golden')
    .option('--top <n>', 'how many smallest margins to list', '5')
    .option('--root <dir>', 'repository root', process.cwd())
    .option('--json', 'print one JSON document on stdout')
    .action((name: string, o: { staged?: boolean; top: string; root: string; json?: boolean }) => runAction(async () => {
      const [{ runShow }, io] = await Promise.all([import('../../oracle/run-golden.js'), import('../../oracle/io.js')]);
      return runShow(o.root, name, o.staged === true, o.json === true, io.positiveInt('--top', o.top));
    }));
}
