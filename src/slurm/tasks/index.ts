import type { TaskKind } from '../wire.js';
import { handleBusy } from './busy.js';
import { handleCommand } from './command.js';
import { handleLeg } from './leg.js';
import type { TaskHandler } from './types.js';

// The runner's table: each kind of node task and the handler that runs it on the node.
export const TASK_HANDLERS: Partial<Record<TaskKind, TaskHandler>> = {
  leg: handleLeg,
  busy: handleBusy,
  command: handleCommand,
};
