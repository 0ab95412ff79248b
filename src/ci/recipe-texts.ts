/**
 * The CI recipes of examples/ as text, for `init --ci`: the one copy of each, which the recipe
 * tests lint. Run from the sources (tests), they are read from the checkout; the build
 * (scripts/build.mjs) replaces this module with their text, since the package ships no examples/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../io/paths.js';

export const RECIPE_NAMES = ['github/sitesync-plan.yml', 'github/sitesync-apply.yml', 'github/sitesync-drift.yml', 'gitlab/.gitlab-ci.yml'] as const;

export type RecipeName = (typeof RECIPE_NAMES)[number];

export function recipeText(name: RecipeName): string {
  return readFileSync(join(packageRoot(), 'examples', name), 'utf8');
}
