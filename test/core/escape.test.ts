import { describe, expect, it } from 'vitest';
import { escapedOf, zombiesToReap, type LegView } from '../../src/exec/escape.js';
import { newestPid, nothingCreatedSince, parseNewestPid, type ProcStat } from '../../src/exec/procfs.js';

// Which processes are a leg's once they left its process group (src/exec/escape.ts), on /proc snapshots
// written out by hand. nh-gate is pid 100; the leg's leader is 200 (its group and session), started at tick 50.

const p = (pid: number, ppid: number, o: Partial<ProcStat> = {}): ProcStat => ({ pid, ppid, pgrp: pid, session: pid, state: 'S', cpuTicks: 0, startTicks: 60, ...o });

function view(procs: ProcStat[], o: Partial<LegView> = {}, marks: Record<number, 'ours' | 'other' | 'none' | null> = {}): LegView {
  return { procs, selfPid: 100, leaderPid: 200, leaderStartTicks: 50, exclude: new Set(), marker: (pid) => marks[pid] ?? 'none', concurrent: false, ...o };
}

const found = (v: LegView) => Object.fromEntries(escapedOf(v));

describe('escaped processes of a leg', () => {
  it('its group, whatever its parent; never the leader, nh-gate or an excluded pid', () => {
    const procs = [p(100, 1), p(200, 100, { pgrp: 200, session: 200 }), p(201, 1, { pgrp: 200, session: 200 }), p(300, 100, { pgrp: 200 })];
    expect(found(view(procs))).toEqual({ 201: 'group', 300: 'group' });
    expect(found(view(procs, { exclude: new Set([300]) }))).toEqual({ 201: 'group' });
    expect(found(view([p(100, 1, { pgrp: 200 })]))).toEqual({});
  });

  it('the leg marker finds a worker in a session of its own, parented anywhere; another leg\'s marker is not ours', () => {
    const procs = [p(400, 1), p(401, 1), p(402, 1)];
    expect(found(view(procs, {}, { 400: 'ours', 401: 'other', 402: null }))).toEqual({ 400: 'marker' });
  });

  it('a process started before the leader cannot be its own, marker or not', () => {
    expect(found(view([p(400, 1, { startTicks: 49 })], {}, { 400: 'ours' }))).toEqual({});
    expect(found(view([p(400, 1, { startTicks: 50 })], {}, { 400: 'ours' }))).toEqual({ 400: 'marker' });
    expect(found(view([p(400, 1, { startTicks: 10 })], { leaderStartTicks: null }, { 400: 'ours' }))).toEqual({ 400: 'marker' });
  });

  it('re-parented to nh-gate (the subreaper) with the leader\'s session, or a session of its own when no other leg runs', () => {
    const inSession = p(500, 100, { pgrp: 500, session: 200 });
    const ownSession = p(501, 100);
    const otherSession = p(502, 100, { pgrp: 502, session: 999 });
    const notOurChild = p(503, 1, { pgrp: 503, session: 200 });
    expect(found(view([inSession, ownSession, otherSession, notOurChild]))).toEqual({ 500: 'reparented', 501: 'reparented' });
    expect(found(view([inSession, ownSession], { concurrent: true }))).toEqual({ 500: 'reparented' });
    expect(found(view([ownSession], {}, { 501: 'other' }))).toEqual({});
  });

  it('descendants of what was found, and children of the leader, at any depth; zombies are not killed', () => {
    const procs = [p(600, 1, {}), p(601, 600), p(602, 601), p(603, 200), p(604, 603), p(605, 600, { state: 'Z' }), p(606, 1)];
    expect(found(view(procs, {}, { 600: 'ours' }))).toEqual({ 600: 'marker', 601: 'descendant', 602: 'descendant', 603: 'descendant', 604: 'descendant' });
  });
});

describe('the dead nh-gate collects', () => {
  it('zombies re-parented to nh-gate that were the leg\'s (killed, its group or its session); never the leader or others', () => {
    const z = (pid: number, o: Partial<ProcStat> = {}) => p(pid, 100, { state: 'Z', ...o });
    const procs = [z(200, { pgrp: 200, session: 200 }), z(701), z(702, { pgrp: 200 }), z(703, { session: 200 }), z(704), p(705, 100, { pgrp: 200 }), z(706, { ppid: 1, pgrp: 200 }), z(707, { pgrp: 200 })];
    expect(zombiesToReap(view(procs, { exclude: new Set([707]) }), new Set([701]))).toEqual([701, 702, 703]);
    expect(zombiesToReap(view([p(708, 100, { state: 'X', pgrp: 200 })]), new Set())).toEqual([708]);
  });
});

// The exit sweep's shortcut (issue 25): no scan of every process when the kernel has created none since the
// leader. The newest pid is /proc/loadavg's last field.
describe('nothing created since the leader', () => {
  it('reads the newest pid from /proc/loadavg, and nothing else', () => {
    expect(parseNewestPid('0.52 0.58 0.59 1/467 12345\n')).toBe(12345);
    expect(parseNewestPid('2.09 2.49 2.56 3/150 8773')).toBe(8773);
    expect(parseNewestPid('0.52 0.58 0.59 1/467\n')).toBeNull();
    expect(parseNewestPid('0.52 0.58 0.59 1/467 12a45\n')).toBeNull();
    expect(parseNewestPid('')).toBeNull();
    expect(parseNewestPid('up 0.52 0.58 0.59 1/467 12345\n')).toBeNull();
    expect(parseNewestPid('0.52 0.58 0.59 12/467 12345 7\n')).toBeNull();
    expect(parseNewestPid('0.52 0.58 0.59 12/467 12345')).toBe(12345);
  });
  // Other tests create processes meanwhile, so only pids that can never be the newest are asked about.
  it.skipIf(process.platform !== 'linux')('is false for init and for pid 0 (never given out); the newest pid is a real one', () => {
    expect(nothingCreatedSince(1)).toBe(false);
    expect(nothingCreatedSince(0)).toBe(false);
    expect(newestPid()).toBeGreaterThan(1);
  });
});
