/**
 * The I/O half of `sitesync fmt`: reads the files named and every file their `include:` globs
 * match (relative to the including file, followed to any depth, each file once), and formats
 * each in memory. Nothing is written here: the command writes only once every file formatted.
 */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative } from 'node:path';
import { ConfigError, type Diagnostic } from '../errors.js';
import { namesDescriptor } from '../files.js';
import { formatConfigText } from './format.js';
import { includedFiles, outsideMessage, repositoryOf } from './include-glob.js';
import { hasNoFolder, noFolderMessage, readTextFile } from './read.js';

export interface FormattedFile {
  /** The file on disk (symbolic links followed: the file written is the one the link names). */
  path: string;
  /** As the user named it, or relative to the working folder for an included file. */
  shown: string;
  before: string;
  after: string;
  /** Passwords written in clear in it, which no output may show. */
  passwords: string[];
}

export interface FormatRun {
  files: FormattedFile[];
  /** An include glob that matched no file. */
  warnings: Diagnostic[];
}

/** Every file in the canonical layout, or one ConfigError with the problems of all of them. */
export async function formatFiles(named: { path: string; shown: string }[], options: { cwd: string; sort: boolean }): Promise<FormatRun> {
  const files: FormattedFile[] = [];
  const warnings: Diagnostic[] = [];
  const problems: Diagnostic[] = [];
  const seen = new Set<string>();
  // Each file's includes stay in the repository of the file named (fmt writes only there).
  const queue: { path: string; shown: string; root?: string }[] = [...named];
  for (let next = queue.shift(); next; next = queue.shift()) {
    // A link is followed to the file it names; a name of standard input is not (fmt refuses to write it).
    const path = namesDescriptor(next.path) ? next.path : await realpath(next.path).catch(() => next!.path);
    if (seen.has(path)) continue;
    seen.add(path);
    try {
      const before = await readTextFile(next.path);
      const formatted = formatConfigText(before, { file: next.shown, sort: options.sort });
      files.push({ path, shown: next.shown, before, after: formatted.text, passwords: formatted.passwords });
      const noFolder = formatted.includes.length > 0 && hasNoFolder(next.path);
      for (const pattern of formatted.includes) {
        if (noFolder) {
          problems.push({ file: next.shown, line: 0, col: 0, message: noFolderMessage(pattern), severity: 'error' });
          continue;
        }
        const root = next.root ?? repositoryOf(next.path);
        const { inside, outside } = await includedFiles(pattern, dirname(next.path), root);
        if (outside) problems.push({ file: next.shown, line: 0, col: 0, message: outsideMessage(pattern, outside, root), severity: 'error' });
        else if (inside.length === 0) {
          warnings.push({ file: next.shown, line: 0, col: 0, message: `include "${pattern}" matches no file`, severity: 'warning' });
        }
        for (const match of inside) queue.push({ path: match, shown: shownPath(match, options.cwd), root });
      }
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // readTextFile names the file by its path: say it as the user did.
      problems.push(...error.diagnostics.map((d) => ({ ...d, file: next!.shown })));
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return { files, warnings };
}

function shownPath(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path;
}
