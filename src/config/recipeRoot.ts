import { basename, dirname } from 'node:path';

// What a recipe's relative paths (sourceDir, buildDir, profile) resolve against: the directory above recipes/
// when the recipe lives in one, else its own directory. One rule, used by the gates and by `validate`.
export function recipeRoot(recipePath: string): string {
  const dir = dirname(recipePath);
  return basename(dir) === 'recipes' ? dirname(dir) : dir;
}
