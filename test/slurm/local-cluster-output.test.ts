import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { repoRoot } from '../helpers/engine.js';

// What `scripts/slurm/local-cluster.sh start` tells a client shell, checked without starting a cluster: the
// daemons and Slurm's clients are stand-ins on PATH (they start nothing; sinfo reports both nodes idle), the
// state directory is a scratch one. `start` used to leave SLURM_CONF to the user (SLURM_UNAVAILABLE until
// exported); it now prints the export line on stdout, so `eval "$(… start)"` sets it.
const SCRIPT = join(repoRoot, 'scripts', 'slurm', 'local-cluster.sh');
const state = mkdtempSync(join(tmpdir(), 'nh-lc-state-'));
const bin = mkdtempSync(join(tmpdir(), 'nh-lc-bin-'));
const stub = (name: string, body = 'exit 0'): void => {
  writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
};
for (const d of ['munged', 'slurmctld', 'slurmd', 'scontrol']) stub(d);
stub('sinfo', "printf 'n1 idle\\nn2 idle\\n'");
const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, NH_SLURM_STATE: state, NH_SLURM_ACCOUNTING: 'off', SLURM_CONF: '' };
const CONF = join(state, 'slurm.conf');
let holder: ResultPromise | null = null;
afterAll(() => { holder?.kill(); });

describe('local-cluster.sh: what clients need', () => {
  it('start prints the export line on stdout (progress and the how-to on stderr); eval of it sets SLURM_CONF', async () => {
    const r = await execa('bash', [SCRIPT, 'start'], { env, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`export SLURM_CONF=${CONF}`);
    expect(r.stderr).toContain(`local-cluster: up (SLURM_CONF=${CONF}), accounting: none: NH_SLURM_ACCOUNTING=off`);
    expect(r.stderr).toContain(`clients need SLURM_CONF: run  eval "$(${SCRIPT} env)"`);
    const shell = await execa('bash', ['-c', `eval "$(bash '${SCRIPT}' start 2>/dev/null)" && printf '%s' "$SLURM_CONF"`], { env, reject: false });
    expect(shell.stdout).toBe(CONF);
  });

  it('a cluster already running says so, with the same line; env prints it alone', async () => {
    holder = execa('sleep', ['120'], { reject: false });
    mkdirSync(join(state, 'run'), { recursive: true });
    writeFileSync(join(state, 'run', 'slurmctld.pid'), String(holder.pid));
    const r = await execa('bash', [SCRIPT, 'start'], { env, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`export SLURM_CONF=${CONF}`);
    expect(r.stderr).toMatch(/^local-cluster: already running \(SLURM_CONF=/m);
    expect((await execa('bash', [SCRIPT, 'env'], { env })).stdout).toBe(`export SLURM_CONF=${CONF}`);
  });
});
