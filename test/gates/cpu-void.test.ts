import { describe, expect, it } from 'vitest';
import { applyCpuContention } from '../../src/gates/leg/cpuVoid.js';
import { GateSchema } from '../../src/config/gate.js';
import { leg } from './fixtures.js';

describe('a CPU-contended leg', () => {
  const contended = () => {
    const l = leg(0, 'A', 0.01);
    l.contention = { ...l.contention, cpu: 'CPU_CONTENDED: other processes used 71% of the host CPU over the leg (load average 3.1)' };
    return l;
  };

  it('is only flagged by default: verdict and speed stand', () => {
    const l = contended();
    applyCpuContention(l, false);
    expect(l.verdict).toBe('STRICT PASS');
    expect(l.quantities.perOutputToken).toMatchObject({ status: 'measured' });
  });

  it('is VOID (CPU_CONTENDED) where the gate asks, and has no speed', () => {
    const l = contended();
    applyCpuContention(l, true);
    expect(l.verdict).toBe('VOID');
    expect(l.voidReasons).toEqual([{ code: 'CPU_CONTENDED', message: expect.stringMatching(/71% of the host CPU.*the gate voids a CPU-contended leg/) }]);
    expect(l.quantities.perOutputToken).toMatchObject({ status: 'refused', reason: 'CONTENDED' });
  });

  it('a quiet leg is untouched even where the gate asks; the gate field is declared', () => {
    const l = leg(0, 'A', 0.01);
    applyCpuContention(l, true);
    expect(l.verdict).toBe('STRICT PASS');
    expect(GateSchema.parse({ schemaVersion: 1, kind: 'a3', name: 'x', recipe: 'llama-cpp', voidIfCpuContended: true }).voidIfCpuContended).toBe(true);
  });
});
