/**
 * The I/O half of `sitesync fmt`: reads the files named and every file their `include:` globs
 * match (relative to the including file, followed to any depth, each file once), and formats
 * each in memory. Nothing is written here: the command writes only once every file formatted.
 * Also how `fmt` and `import` read a file they edit in place: with its byte-order mark.
 */
import { readFile, realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError, type Diagnostic } from '../messages/errors.js';
import { namesDescriptor } from '../io/files.js';
import { shownPath } from '../io/paths.js';
import { formatConfigText, type NotSorted } from './format.js';
import { includedFiles, linkedOutside, outsideMessage, repositoryOf } from './include-glob.js';
import { decodeText, hasNoFolder, noFolderMessage, readTextFile } from './read.js';
import { MAX_CONFIG_FILE_BYTES } from '../caps.js';

export interface FormattedFile {
  /** The file on disk (symbolic links followed: the file written is the one the link names). */
  path: string;
  /** As the user named it, or relative to the working folder for an included file. */
  shown: string;
  /** Every byte the file held when it was read, a byte-order mark included. */
  before: string;
  /** The same in the canonical layout, with the file's line ending and byte-order mark. */
  after: string;
  /** Passwords written in clear in it, which no output may show. */
  passwords: string[];
  /** What `--sort` left in its order, and why. */
  notSorted?: NotSorted;
  /** The `include:` globs it holds, as written. */
  includes: string[];
}

/** A file as an edit in place reads it: its text, and whether it starts with a byte-order mark, which the edit keeps. */
export interface FileText {
  /** Without the byte-order mark, as every reader of sitesync sees it. */
  text: string;
  bom: boolean;
  /** Every byte the file holds (the mark included): what it must still hold when the edit is written. */
  raw: string;
}

const BOM = '\ufeff';

/**
 * Reads a file to edit in place. A regular file is read once, as bytes, so that its
 * byte-order mark is seen (readTextFile drops it); anything else (missing, a folder, a pipe,
 * too large) is read, or refused, as readTextFile does.
 */
export async function readFileText(path: string, what = 'config file'): Promise<FileText> {
  const viaReader = async (): Promise<FileText> => {
    const text = await readTextFile(path, what);
    return { text, bom: false, raw: text };
  };
  if (hasNoFolder(path)) return viaReader();
  const bytes = await readFile(path).catch(() => undefined);
  if (!bytes || bytes.length > MAX_CONFIG_FILE_BYTES) return viaReader();
  const text = decodeText(bytes, path, what);
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return { text, bom, raw: bom ? `${BOM}${text}` : text };
}

/** The text to write for `text`: with the byte-order mark the file had. */
export function withBom(text: string, bom: boolean): string {
  return bom ? `${BOM}${text}` : text;
}

/** One file read and formatted in memory (a ConfigError at FILE:LINE:COL when it is not YAML). */
export async function formatFile(path: string, shown: string, sort: boolean): Promise<FormattedFile> {
  try {
    const read = await readFileText(path);
    const formatted = formatConfigText(read.text, { file: shown, sort });
    return {
      path,
      shown,
      before: read.raw,
      after: withBom(formatted.text, read.bom),
      passwords: formatted.passwords,
      includes: formatted.includes,
      ...(formatted.notSorted ? { notSorted: formatted.notSorted } : {}),
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // readTextFile names the file by its path: say it as the user did.
    throw new ConfigError(error.diagnostics.map((d) => ({ ...d, file: shown })));
  }
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
    // A file named on the command line that links out of its repository is neither shown nor written.
    const linked = next.root || namesDescriptor(next.path) ? undefined : linkedOutside(next.path);
    if (linked) {
      problems.push({ file: next.shown, line: 0, col: 0, message: linked, severity: 'error' });
      continue;
    }
    try {
      const formatted = await formatFile(next.path, next.shown, options.sort);
      files.push({ ...formatted, path });
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
      problems.push(...error.diagnostics);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return { files, warnings };
}

