import { describe, expect, it } from 'vitest';
import { activityFromGpm, type GpmPoint } from '../../src/quantity/activity.js';
import { clocksOverWindow } from '../../src/quantity/clocks.js';

const pair = (tS: number, sm: number | null, occ = 10, dram = 5, intervalS = 0.5): GpmPoint => ({ tS, intervalS, smUtilPct: sm, smOccupancyPct: occ, dramBwUtilPct: dram });

describe('SM activity from GPM pairs over a window', () => {
  it('time-weights the pairs overlapping the window and says what SM_UTIL measures', () => {
    const f = activityFromGpm([pair(0.5, 10), pair(1.0, 30), pair(1.5, 50), pair(2.0, 90)], { startS: 0.25, endS: 1.5 }, { gpmStatus: 'sampling' });
    // (10*0.25 + 30*0.5 + 50*0.5) / 1.25 = 34
    expect(f.smUtil).toMatchObject({ status: 'measured', value: 34, unit: '%', kind: 'gpmActivity' });
    expect(f.smUtil.status === 'measured' && f.smUtil.terms.intervals?.value).toBe(3);
    expect(f.smUtil.status === 'measured' && String(f.smUtil.terms.means?.value)).toMatch(/not the driver busy figure/);
    expect(f.smOccupancy).toMatchObject({ status: 'measured', value: 10 });
    expect(f.dramBwUtil).toMatchObject({ status: 'measured', value: 5 });
  });

  it('a pair the window cuts is split at its neighbours\' level, as busy is (issue #23)', () => {
    // Idle until 0.75 s, then 80%: the pair (0.5, 1.0] reads 40. Over [0.75, 1.5] the truth is 80; spreading that
    // pair uniformly would read (40 × 0.25 + 80 × 0.5) / 0.75 = 66.7.
    const f = activityFromGpm([pair(0.5, 0), pair(1.0, 40), pair(1.5, 80), pair(2.0, 80)], { startS: 0.75, endS: 1.5 }, { gpmStatus: 'sampling' });
    expect(f.smUtil.status === 'measured' && f.smUtil.value).toBeCloseTo(80, 9);
  });

  it('refuses FEW_GPM_INTERVALS when fewer than two pairs overlap the window', () => {
    const f = activityFromGpm([pair(0.5, 10), pair(1.0, 30)], { startS: 0.6, endS: 0.9 }, { gpmStatus: 'sampling' });
    expect(f.smUtil).toMatchObject({ status: 'refused', reason: 'FEW_GPM_INTERVALS' });
    expect(f.smUtil.status === 'refused' && f.smUtil.message).toMatch(/1 GPM interval\(s\).*two are needed/);
  });

  it('does not count a pair whose metric was unread', () => {
    const f = activityFromGpm([pair(0.5, null), pair(1.0, 30)], { startS: 0, endS: 1 }, { gpmStatus: 'sampling' });
    expect(f.smUtil).toMatchObject({ status: 'refused', reason: 'FEW_GPM_INTERVALS' });
    expect(f.smOccupancy).toMatchObject({ status: 'measured' });
  });

  it('refuses GPM_UNSUPPORTED with the sampler\'s reason, and when the samples hold no GPM at all', () => {
    expect(activityFromGpm([], { startS: 0, endS: 1 }, { gpmStatus: 'unsupported: device has no GPM (Hopper or newer needed)' }).smUtil)
      .toMatchObject({ status: 'refused', reason: 'GPM_UNSUPPORTED', message: expect.stringMatching(/Hopper/) });
    expect(activityFromGpm([], { startS: 0, endS: 1 }, { gpmStatus: null }).smUtil).toMatchObject({ status: 'refused', reason: 'GPM_UNSUPPORTED' });
    expect(activityFromGpm([pair(1, 1), pair(2, 2)], null, { gpmStatus: 'sampling' }).smUtil).toMatchObject({ status: 'refused', reason: 'WINDOW_UNKNOWN' });
  });
});

describe('SM clocks and clock-event reasons over a window', () => {
  const c = (tS: number, smMHz: number, eventReasons: string[] = []) => ({ tS, smMHz, eventReasons });
  it('min and median SM clock of the samples inside the window; idle is not a throttle', () => {
    const f = clocksOverWindow([c(0, 300, ['GpuIdle']), c(1, 1980), c(2, 1755), c(3, 1830), c(9, 100)], { startS: 0.5, endS: 3.5 });
    expect(f.smClockMin).toMatchObject({ status: 'measured', value: 1755, unit: 'MHz' });
    expect(f.smClockMedian).toMatchObject({ status: 'measured', value: 1830 });
    expect(f.throttled).toBe(false);
  });
  it('flags power, thermal and unknown slowdown bits', () => {
    expect(clocksOverWindow([c(1, 1500, ['SwPowerCap']), c(2, 1980, ['GpuIdle'])], { startS: 0, endS: 3 })).toMatchObject({ throttled: true, throttleReasons: ['SwPowerCap'], reasons: { SwPowerCap: 1, GpuIdle: 1 } });
    expect(clocksOverWindow([c(1, 1500, ['HwThermalSlowdown', '0x1000'])], { startS: 0, endS: 3 }).throttleReasons).toEqual(['0x1000', 'HwThermalSlowdown']);
  });
  it('refuses NO_SAMPLES when no clock sample fell inside the window', () => {
    expect(clocksOverWindow([c(5, 1980)], { startS: 0, endS: 1 }).smClockMin).toMatchObject({ status: 'refused', reason: 'NO_SAMPLES' });
  });
});
