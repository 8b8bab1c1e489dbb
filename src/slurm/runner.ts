#!/usr/bin/env node
// The leg runner: what a Slurm job runs on its node (`node dist/slurm/runner.js REQUEST.json`).
// It reads the request nh-gate wrote, reads the node's own silicon, runs the leg through the same
// observeLeg the local executor uses, copies the leg's files back when the config says copy-back, and
// writes its record (legs/<name>.node.json) last. nh-gate judges the leg; the runner judges nothing.
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { monoNs } from '../exec/clock.js';
import { onInterrupt } from '../exec/interrupt.js';
import { writeAtomic } from '../io/atomic.js';
import { reason, type Reason } from '../verdict/reasons.js';
import { archClaimKey } from '../quantity/compare.js';
import type { Silicon } from '../silicon/types.js';
import { nodeRecordJson, WIRE_SCHEMA_VERSION, type SlurmLegRequest } from './wire.js';
import { legJobFiles } from './sbatch.js';
import { RUNNER_RUN_DIR_EXIT } from './state.js';

function die(message: string): never {
  process.stderr.write(`nh-gate leg runner on ${process.env.SLURMD_NODENAME ?? hostname()}: RUN_DIR_UNREACHABLE: ${message}\n`);
  process.exit(RUNNER_RUN_DIR_EXIT);
}

function readRequest(path: string | undefined): SlurmLegRequest {
  if (!path) die('no request file was given (usage: runner.js REQUEST.json)');
  let req: SlurmLegRequest;
  try {
    req = JSON.parse(readFileSync(path, 'utf8')) as SlurmLegRequest;
  } catch (err) {
    die(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): the run directory must be on a filesystem this node mounts at the same path`);
  }
  if (req.schemaVersion !== WIRE_SCHEMA_VERSION) die(`${path} is request schema ${String(req.schemaVersion)}, this runner reads ${WIRE_SCHEMA_VERSION}: the nodes run another nh-gate version`);
  try {
    accessSync(join(req.runDir, 'legs'), constants.W_OK);
  } catch (err) {
    die(`cannot write ${join(req.runDir, 'legs')} (${(err as NodeJS.ErrnoException).code}): the run directory must be writable from this node`);
  }
  return req;
}

// The GPU Slurm gave this job: SLURM_JOB_GPUS names the node's index when the GPUs are not hidden by cgroups.
function jobDeviceIndex(): number | undefined {
  const first = (process.env.SLURM_JOB_GPUS ?? process.env.SLURM_STEP_GPUS ?? '').split(',')[0];
  return first && /^\d+$/.test(first) ? Number(first) : undefined;
}

// A node whose silicon does not have the series' arch runs nothing: its numbers would be another chip's.
function archFault(arch: string, s: Silicon, node: string): Reason | null {
  if (arch === 'cpu') return null;
  const want = archClaimKey(arch);
  const have = s.kind === 'gpu' ? `cc${s.computeCapability}` : 'no GPU';
  return want === have ? null : reason('NO_SUCH_SILICON', `node ${node} has ${s.kind === 'gpu' ? `${s.gpuName} (${have})` : 'no GPU'}, the series claims --arch ${arch}; add a constraint for ${arch} to the Slurm config`);
}

async function main(): Promise<void> {
  const requestPath = process.argv[2];
  const req = readRequest(requestPath);
  const node = process.env.SLURMD_NODENAME ?? hostname();
  const jobId = process.env.SLURM_JOB_ID ?? null;
  const originNs = monoNs() - BigInt(Math.round((Date.now() - req.originWallMs) * 1e6));
  const files = legJobFiles(req.runDir, req.leg.name);
  const interrupt = onInterrupt((sig) => process.stderr.write(`nh-gate leg runner: ${sig}: killing the leg's process tree\n`));
  try {
    const [{ detectSilicon }, { realDeps }, { observeLeg }] = await Promise.all([import('../silicon/detect.js'), import('../gates/deps.js'), import('../gates/observe.js')]);
    const deviceIndex = jobDeviceIndex();
    let silicon: Silicon;
    try {
      silicon = await detectSilicon(deviceIndex !== undefined ? { deviceIndex } : {});
    } catch {
      silicon = await detectSilicon({ deviceIndex: 0 });
    }
    const fault = archFault(req.arch, silicon, node);
    if (fault) {
      writeAtomic(files.node, nodeRecordJson({ node, jobId, silicon, originNs, observed: null, fault }));
      return;
    }
    const leg = { ...req.leg, sampleGpu: silicon.kind === 'gpu' && req.arch !== 'cpu', deviceIndex: deviceIndex ?? 0 };
    const outDir = req.copyMode === 'shared' ? req.runDir : mkdtempSync(join(req.nodeScratch, `nh-gate-${jobId ?? 'leg'}-`));
    const observed = await observeLeg(leg, outDir, await realDeps(), interrupt.signal);
    if (outDir !== req.runDir) {
      // The job's own copy step: the leg wrote node-locally while it ran; its files go back now, then the scratch goes.
      for (const rel of [observed.files.log, observed.files.events, observed.files.samples]) {
        if (rel && existsSync(join(outDir, rel))) {
          mkdirSync(join(req.runDir, 'legs'), { recursive: true });
          copyFileSync(join(outDir, rel), join(req.runDir, rel));
        }
      }
      rmSync(outDir, { recursive: true, force: true });
    }
    writeAtomic(files.node, nodeRecordJson({ node, jobId, silicon, originNs, observed, fault: null }));
  } finally {
    interrupt.dispose();
  }
}

main().catch((err) => {
  process.stderr.write(`nh-gate leg runner: INTERNAL: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(70);
});
