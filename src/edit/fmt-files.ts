/** The I/O half of `sitesync fmt`: the files named and those they include (the loader's walker), formatted in memory. */
import { realpath } from 'node:fs/promises';
import { walkIncludes } from '../config/load.js';
import { readDocument, type YamlDocument } from '../config/document.js';
import { readFileCollecting, type FileRole, type ParsedFile } from '../config/parse.js';
import { WORK_TREE } from '../config/source.js';
import { namesDescriptor } from '../io/files.js';
import { shownPath } from '../io/paths.js';
import { ConfigError, refuseFile, type Diagnostic } from '../messages/errors.js';
import { readFileText, type NamedFile } from './file.js';
import { formatConfigText, type Formatted } from './layout.js';

/** A file formatted in memory, with what the layout says of it (passwords written in clear: no output may show them). */
export interface FormattedFile extends Omit<Formatted, 'text'>, NamedFile {
  /** Every byte the file held when it was read, a byte-order mark included. */
  before: string;
  /** The same in the canonical layout (its line ending and byte-order mark kept). */
  after: string;
  parsed?: ParsedFile;
}

/** One file read and formatted in memory (a ConfigError at FILE:LINE:COL when it is not YAML). */
export async function formatFile(path: string, shown: string, sort: boolean, role: FileRole = 'main'): Promise<FormattedFile> {
  try {
    const read = await readFileText(path);
    // Parsed once: what the loader reads of it first, then laid out (which rewrites the document).
    const document = readDocument(read.text, shown);
    const parsed = configOf(read.text, path, role, document);
    const { text, ...formatted } = formatConfigText(read.text, { file: shown, sort }, document);
    return { path, shown, before: read.bom + read.text, after: read.bom + text, ...formatted, parsed };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // readTextFile names the file by its path: say it as the user did.
    throw new ConfigError(error.diagnostics.map((d) => ({ ...d, file: shown })));
  }
}

/** What the loader reads of a file (its problems are validate's to say); undefined for YAML that is no mapping. */
function configOf(text: string, path: string, role: FileRole, document: YamlDocument): ParsedFile | undefined {
  try {
    return readFileCollecting(text, path, { env: {}, lenientEnv: true }, role, document).parsed;
  } catch (error) {
    if (error instanceof ConfigError) return undefined;
    throw error;
  }
}

/** Every file in the canonical layout, or one ConfigError with the problems of all of them. */
export async function formatFiles(named: NamedFile[], options: { cwd: string; sort: boolean }): Promise<FormattedFile[]> {
  const files: FormattedFile[] = [];
  const problems: Diagnostic[] = [];
  const seen = new Set<string>();
  const queue: (NamedFile & { role: FileRole })[] = named.map((n) => ({ ...n, role: 'main' }));
  for (const next of queue) {
    // A link is followed to the file it names; a name of standard input is not (fmt refuses to write it).
    const path = namesDescriptor(next.path) ? next.path : await realpath(next.path).catch(() => next.path);
    if (seen.has(path)) continue;
    seen.add(path);
    try {
      // A file named on the command line that links out of its repository is neither shown nor written.
      const linked = next.role === 'main' ? WORK_TREE.refused(next.path) : undefined;
      if (linked) refuseFile(next.shown, linked);
      const formatted = await formatFile(next.path, next.shown, options.sort, next.role);
      files.push({ ...formatted, path });
      if (!formatted.parsed) continue;
      // The files it includes, as the loader finds them: each is an included file (which includes none).
      const { matches, problems: walked } = await walkIncludes(next.path, formatted.parsed, WORK_TREE);
      problems.push(...walked.map((d) => ({ ...d, file: next.shown })));
      for (const match of matches) queue.push({ path: match.path, shown: shownPath(match.path, options.cwd), role: 'include' });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.diagnostics);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return files;
}
