import type { LegRequest } from '../../gates/leg/observe.js';
import { legObservedToWire } from '../wire.js';
import type { TaskHandler } from './types.js';

// A leg on the node: the same observeLeg the local executor runs (sampler, driver, timed log), so a leg is
// observed one way whichever executor ran it.
export const handleLeg: TaskHandler = async (body, ctx) => {
  const [{ realDeps }, { observeLeg }] = await Promise.all([import('../../gates/deps.js'), import('../../gates/leg/observe.js')]);
  const leg = { ...(body as LegRequest), sampleGpu: ctx.sampleGpu, deviceIndex: ctx.deviceIndex };
  const observed = await observeLeg(leg, ctx.outDir, await realDeps(), ctx.signal);
  const files = [observed.files.log, observed.files.events, observed.files.samples].filter((f): f is string => f !== null);
  return { body: legObservedToWire(observed), files };
};
