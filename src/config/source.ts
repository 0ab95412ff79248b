/**
 * Where the loader reads a config file and the files it includes: the work tree (the disk), or a
 * git revision's objects (git-revision.ts). One loader over either: the same includes, the same
 * rules (inside the repository, never .git, no symbolic links), the same messages.
 */
import { namesDescriptor } from '../io/files.js';
import { includedFiles, linkedOutside, repositoryOf, type Included } from './include-glob.js';
import { hasNoFolder, readTextFile } from './read.js';

export interface FileSource {
  /** How messages name the file at `path` (absolute). */
  shown(path: string): string;
  /** Why the config file itself is not read (a link to a file outside its repository); undefined when it is. */
  refused(file: string): string | undefined;
  /** Whether the file has no folder to find the files it includes in (a pipe, standard input). */
  hasNoFolder(file: string): boolean;
  /** The repository that holds the file: all that its includes may reach. */
  repositoryOf(file: string): string;
  /** The file's text; `what` it is to the user, for messages. */
  read(path: string, what: string): Promise<string>;
  /** The files an `include:` glob matches, relative to `folder`, inside `root`. */
  include(glob: string, folder: string, root: string): Promise<Included>;
}

/** The files as they are on disk. */
export const WORK_TREE: FileSource = {
  shown: (path) => path,
  refused: (file) => (namesDescriptor(file) ? undefined : linkedOutside(file)),
  hasNoFolder,
  repositoryOf,
  read: readTextFile,
  include: (glob, folder, root) => includedFiles(glob, folder, root),
};
