/** The files an `include:` glob matches, for the loader and for fmt alike. */
import { resolve } from 'node:path';
import { glob as find } from 'tinyglobby';

/** Sorted absolute paths of the files `glob` matches in `folder`; a glob tinyglobby cannot read matches none. */
export async function includedFiles(glob: string, folder: string): Promise<string[]> {
  try {
    const matches = await find(glob, { cwd: folder, absolute: true, onlyFiles: true, expandDirectories: false });
    return matches.map((match) => resolve(match)).sort();
  } catch {
    // e.g. an absolute glob naming the folder itself, which tinyglobby turns into an empty pattern.
    return [];
  }
}
