import type { Recipe } from '../config/recipe.js';
import { NhGateError } from '../errors.js';

// A recipe whose driver loads a checkpoint it does not build ({checkpoint}, e.g. nemotron-h's --model) needs
// --checkpoint: refused before the lock and the build, not after an hour of compiling.
export function requireCheckpoint(recipe: Recipe, checkpoint: string | undefined): void {
  const d = recipe.driver;
  const uses = [...d.argv, ...d.goldenArgv, ...Object.values(d.modeArgv).flat(), ...recipe.prepare.flat()].some((a) => a.includes('{checkpoint}'));
  if (uses && !checkpoint) {
    throw new NhGateError('USAGE', `recipe '${recipe.name}' runs its driver with {checkpoint} and no --checkpoint was given`, 'pass --checkpoint <the checkpoint file or snapshot directory the driver loads>');
  }
}
