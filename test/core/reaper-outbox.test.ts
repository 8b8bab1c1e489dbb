import { describe, expect, it } from 'vitest';
import { reaperOutbox } from '../../src/exec/reaper.js';

// What the harness writes to its reaper (src/exec/reaper.ts): a leg's "clear" waits for the next write when the
// reaper holds its leader's start time (issue 25: each write wakes the reaper on the leg's critical path).
describe('the reaper outbox', () => {
  it('holds the clear of a group watched with its start time, and sends it ahead of the next line', () => {
    const o = reaperOutbox();
    expect(o.watch(200, 5000, 'm1')).toBe('watch 200 5000 m1\n');
    expect(o.clear(200)).toBeNull();
    // the next leg's leader may reuse the pid: its clear goes first, so the reaper keeps the new watch
    expect(o.watch(200, 6000, 'm2')).toBe('clear 200\nwatch 200 6000 m2\n');
    expect(o.clear(200)).toBeNull();
    expect(o.take('job 7\n')).toBe('clear 200\njob 7\n');
    expect(o.take('unjob 7\n')).toBe('unjob 7\n');
  });

  it('clears at once a group watched without a start time (the reaper would signal it by pgid alone), or never watched', () => {
    const o = reaperOutbox();
    expect(o.watch(300, null, '-')).toBe('watch 300 - -\n');
    expect(o.clear(300)).toBe('clear 300\n');
    expect(o.clear(301)).toBe('clear 301\n');
    // a pid watched with a start time, then again without one: the second watch decides
    o.watch(400, 1, 'a');
    o.watch(400, null, 'b');
    expect(o.clear(400)).toBe('clear 400\n');
  });

  it('sends each held clear once, in order', () => {
    const o = reaperOutbox();
    o.watch(1, 10, 'a');
    o.watch(2, 20, 'b');
    expect([o.clear(1), o.clear(2)]).toEqual([null, null]);
    expect(o.watch(3, 30, 'c')).toBe('clear 1\nclear 2\nwatch 3 30 c\n');
    expect(o.clear(1)).toBe('clear 1\n');
  });
});
