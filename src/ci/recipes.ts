/**
 * The CI recipes of examples/ fitted to one repository (`init --ci`): their path filters cover
 * the folders the config's `include:` globs reach, the GitHub jobs pass each account's key
 * variable from its secret, and GitLab's apply job keeps the folders `archive:` names.
 */
import { recipeText, type RecipeName } from './recipe-texts.js';

export type CiProvider = 'github' | 'gitlab';

export interface RecipeSetup {
  /** The `include:` globs of the config, relative to it (at the repository's top). */
  includes: string[];
  /** Each account's `api_key_env`; undefined for a single-account file (SITESYNC_API_KEY, SITESYNC_BASE_URL). */
  keyVariables?: string[];
  /** The folders `archive:` names; none: the example's. */
  archives: string[];
}

export interface RecipeFile {
  /** Where it goes, relative to the repository's top. */
  path: string;
  text: string;
}

const GITHUB: [RecipeName, string][] = [
  ['github/sitesync-plan.yml', '.github/workflows/sitesync-plan.yml'],
  ['github/sitesync-apply.yml', '.github/workflows/sitesync-apply.yml'],
  ['github/sitesync-drift.yml', '.github/workflows/sitesync-drift.yml'],
];

/** The example's filter entries for the included files, in GitHub's and GitLab's pattern syntax. */
const EXAMPLE_FILTER = { github: '"clients/**"', gitlab: '"clients/**/*"' } as const;

export function recipesFor(provider: CiProvider, setup: RecipeSetup): RecipeFile[] {
  const named: [RecipeName, string][] = provider === 'github' ? GITHUB : [['gitlab/.gitlab-ci.yml', '.gitlab-ci.yml']];
  return named.map(([name, path]) => {
    let text = withFilters(recipeText(name), provider, setup.includes);
    if (provider === 'github' && setup.keyVariables) text = withKeys(text, setup.keyVariables);
    if (provider === 'gitlab' && setup.archives.length) text = withArchives(text, setup.archives);
    return { path, text };
  });
}

/** The folders the globs reach: each glob's path up to its first wildcard (a glob with none: itself). */
export function watchedPatterns(includes: string[], provider: CiProvider): string[] {
  const patterns = includes.map((glob) => {
    const parts = glob.replace(/^\.\//, '').split('/');
    const wild = parts.findIndex((p) => /[*?[{]/.test(p));
    if (wild < 0) return parts.join('/');
    // init's layout, a folder per account under clients/: all of clients/, so that a new client's folder is covered too.
    const kept = parts[0] === 'clients' && wild > 0 ? 1 : wild;
    if (kept === 0) return provider === 'github' ? '**' : '**/*';
    return `${parts.slice(0, kept).join('/')}/${provider === 'github' ? '**' : '**/*'}`;
  });
  return [...new Set(patterns)];
}

function withFilters(text: string, provider: CiProvider, includes: string[]): string {
  const patterns = watchedPatterns(includes, provider).map((p) => JSON.stringify(p));
  const replacement = patterns.length ? `, ${patterns.join(', ')}` : '';
  return text.replaceAll(`, ${EXAMPLE_FILTER[provider]}`, replacement);
}

/** The single-account lines (SITESYNC_API_KEY, the accounts' example, SITESYNC_BASE_URL) become one line per account's key. */
function withKeys(text: string, variables: string[]): string {
  return text.replace(
    /^( +)SITESYNC_API_KEY: \$\{\{ secrets\.SITESYNC_API_KEY \}\}\n(?:\1#.*\n)*\1SITESYNC_BASE_URL: .*\n/gm,
    (_, indent: string) => variables.map((name) => `${indent}${name}: \${{ secrets.${name} }}\n`).join(''),
  );
}

function withArchives(text: string, folders: string[]): string {
  return text.replace(/^( +)- archives\/\n/m, (_, indent: string) => folders.map((f) => `${indent}- ${JSON.stringify(`${f.replace(/\/+$/, '')}/`)}\n`).join(''));
}
