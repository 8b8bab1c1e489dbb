// Every example in docs/fleet.md is run here: the config block is the example file and parses strictly,
// the key table lists exactly the schema's keys, and the shell lines run against the local cluster
// (skipped and counted when it is not running), each with the exit code its comment states.
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { SlurmConfigSchema } from '../../src/slurm/config.js';
import { repoRoot } from '../helpers/engine.js';
import { CLUSTER_DOWN, lockCluster, slurmEnv } from './helpers.js';

const doc = readFileSync(join(repoRoot, 'docs', 'fleet.md'), 'utf8');
const blocks = (lang: string): string[] => [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

describe('docs/fleet.md', () => {
  it('the config example is docs/examples/nh-gate.slurm.json and passes the strict schema', () => {
    const [json] = blocks('json');
    expect(json).toBeDefined();
    expect(JSON.parse(json!)).toEqual(JSON.parse(readFileSync(join(repoRoot, 'docs', 'examples', 'nh-gate.slurm.json'), 'utf8')));
    expect(SlurmConfigSchema.safeParse(JSON.parse(json!)).success).toBe(true);
  });

  it('the key table names every key of the schema, and no other', () => {
    const table = doc.slice(doc.indexOf('| key |'), doc.indexOf('\n\n', doc.indexOf('| key |')));
    const named = [...table.matchAll(/^\| ((?:`[a-zA-Z]+`(?:, )?)+) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([a-zA-Z]+)`/g)].map((k) => k[1]!));
    expect(named.sort()).toEqual(Object.keys(SlurmConfigSchema.shape).sort());
  });

  describe.skipIf(CLUSTER_DOWN !== null)(`shell examples against the local cluster${CLUSTER_DOWN ? ` (skipped: ${CLUSTER_DOWN})` : ''}`, () => {
    let unlock = (): void => {};
    beforeAll(async () => {
      unlock = await lockCluster();
    }, 1_200_000);
    afterAll(() => unlock());
    it('each line exits as its comment says', async () => {
      const results = mkdtempSync(join(tmpdir(), 'nh-docs-fleet-'));
      const lines = blocks('sh').flatMap((b) => b.split('\n')).filter((l) => l.trim() !== '');
      expect(lines.length).toBeGreaterThanOrEqual(4);
      for (const line of lines) {
        const want = /#\s*exit (\d+)/.exec(line);
        expect(want, `no '# exit N' on: ${line}`).not.toBeNull();
        const runs = (): string[] => { try { return readdirSync(join(results, 'runs')).sort(); } catch { return []; } };
        const lastRun = runs().at(-1);
        // Words as the shell splits them here: single-quoted words keep their spaces.
        const words = [...line.replace(/\s+#\s*exit \d+.*$/, '').trim().matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!).map((w) => (w === '$RUN_DIR' ? join(results, 'runs', lastRun ?? 'none') : w));
        // Where the run writes goes under the test's own folder: before a '--' (busy's command follows it).
        const own = words[2] === 'mutate' ? ['--workspace', join(results, 'mutate-ws'), '--out', join(results, `mutate-${lines.indexOf(line)}`)] : ['--results-dir', results];
        const dash = words.indexOf('--');
        const withOwn = dash < 0 ? [...words.slice(2), ...own] : [...words.slice(2, dash), ...own, ...words.slice(dash)];
        const argv = words[0] === 'npx' && words[1] === 'nh-gate'
          ? [process.execPath, join(repoRoot, 'bin', 'nh-gate.js'), ...withOwn]
          : ['bash', ...words];
        const r = await execa(argv[0]!, argv.slice(1), { cwd: repoRoot, reject: false, env: { ...slurmEnv, NH_GATE_LOCK: join(results, 'gpu.lock') } });
        expect(r.exitCode, `${line}\n${r.stdout}\n${r.stderr}`).toBe(Number(want![1]));
        if (['a3', 'ab', 'busy'].includes(words[2]!)) expect(r.stdout).toMatch(/slurm: job \d+ (step \d+\.\d+ )?on n[12] COMPLETED/);
        if (words[2] === 'mutate') expect(readFileSync(join(results, `mutate-${lines.indexOf(line)}`, 'result.json'), 'utf8')).toMatch(/"jobId": "\d+"/);
      }
    }, 300_000);
  });
});
