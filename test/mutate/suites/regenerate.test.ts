import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSuite } from '../../../src/mutate/suite/read.js';
import type { SuiteCounts } from '../../../src/mutate/suite/types.js';
import { needsTitle } from '../../helpers/needs.js';
import { REPO } from '../helpers.js';
// @ts-expect-error: a plain .mjs script (it is also the accept command), typed by its use here
import { captureAll } from './capture.mjs';
import { CAPTURES, captured } from './captured.js';

// The captures are real output of project/: rebuilding it here and running every capture again must give
// the readers the same cases, statuses and counts (notes are left out: they carry the build's paths).
const FRAMEWORKS = ['/usr/include/doctest/doctest.h', '/usr/include/gtest/gtest.h', '/usr/include/catch2/catch.hpp'];
const ready = FRAMEWORKS.every((f) => existsSync(f));
const NEED = { what: 'GoogleTest and Catch2 headers (libgtest-dev, catch2)', ready, build: 'node scripts/prereq.mjs gtest catch2' };

function shape(k: SuiteCounts | null): unknown {
  if (!k) return null;
  return { cases: k.cases, failing: k.failingCases, skipped: k.skippedCases, results: k.caseResults.map(({ note: _n, ...c }) => c), source: k.source, assertions: k.assertions };
}

describe.skipIf(!ready)(needsTitle('the captured suite output is what project/ prints today', NEED), () => {
  // Inside the repository (ignored .nh-gate/), at a fixed path: CI's ccache (CCACHE_BASEDIR = the clone)
  // then finds the same relative paths on every run and the four suites rebuild from cache.
  const work = join(REPO, '.nh-gate', 'test', 'suites-regen');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  it('rebuilds the four suites, reruns every capture, and the readers agree with the committed captures', { timeout: 600_000 }, () => {
    const { results, missing } = captureAll(join(work, 'w'), join(work, 'out')) as { results: Record<string, { exit: number }>; missing: string[] };
    expect(missing).toEqual([]);
    for (const c of CAPTURES) {
      const fresh = readSuite(captured(c.id, join(work, 'out')), { format: c.format }).counts;
      const kept = readSuite(captured(c.id), { format: c.format }).counts;
      expect(shape(fresh), c.id).toEqual(shape(kept));
      expect(results[c.id]!.exit === 0, c.id).toBe((kept?.failingCases.length ?? 0) === 0);
    }
  });
});
