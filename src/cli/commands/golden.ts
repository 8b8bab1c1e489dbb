import type { Command } from 'commander';
import { runAction } from '../run.js';

interface CaptureFlags {
  recipe: string; preset: string; name?: string; checkpoint?: string; expectSha256?: string; prompts?: string;
  maxNew: string; runs: string; nearTieNats: string; crossCheck: boolean; root: string; json?: boolean;
}

// Registers `nh-gate golden capture | accept | show`: goldens change only through capture → review → accept.
export function register(program: Command): void {
  const golden = program.command('golden').description('capture goldens from the float64 oracle, review them, accept them (never silently)');

  golden
    .command('capture')
    .description('run the float64 oracle over the prompt set and STAGE a golden with a review diff against the committed one')
    .option('--recipe <name>', 'recipe whose engine build provides nh-ref-ckpt', 'nh-ref')
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
    .option('--json', 'print one JSON document on stdout')
    .action((o: CaptureFlags) => runAction(async () => {
      const [{ runCapture }, io] = await Promise.all([import('../../oracle/run-golden.js'), import('../../oracle/io.js')]);
      return runCapture({
        root: o.root, recipe: o.recipe, preset: o.preset, name: o.name ?? `${o.recipe}-${o.preset}`,
        checkpoint: o.checkpoint ?? null, expectSha256: o.expectSha256 ?? null, promptsFile: o.prompts ?? null,
        maxNew: io.positiveInt('--max-new', o.maxNew), runs: io.positiveInt('--runs', o.runs),
        nearTieNats: io.nonNegativeNumber('--near-tie-nats', o.nearTieNats), crossCheck: o.crossCheck, json: o.json === true,
      });
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
