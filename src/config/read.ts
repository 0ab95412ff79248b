/**
 * Reading a config-like file (the I/O half of loading): refuses what cannot be a config file
 * (missing, a folder, huge, binary, not UTF-8) before any parsing is tried.
 *
 * A pipe is a file too: `--baseline <(git show origin/main:sitesync.yaml)` and `-c /dev/stdin`
 * are read like any other, and the size cap holds while reading (a pipe has no size to stat).
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, createReadStream, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { ConfigError, type Diagnostic } from '../messages/errors.js';
import { namesDescriptor } from '../io/files.js';
import { MAX_CONFIG_FILE_BYTES } from '../caps.js';

/** `a config file`, `an included file`. */
export function aOrAn(what: string): string {
  return `${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what}`;
}

/** What the file is, for messages; a missing one says how to get one. */
const MISSING: Record<string, string> = {
  'config file': 'no such file (write one, or start from the live account: sitesync export -o FILE)',
  'baseline file':
    'no such file (a baseline is the config as it was before your change: --baseline-ref origin/main reads it and its includes from git)',
};

/** `dir` and each folder above it, up to the one holding `.git` (as git finds its repository) or the root. */
export function* foldersUp(dir: string): Generator<string> {
  for (; ; dir = dirname(dir)) {
    yield dir;
    if (existsSync(join(dir, '.git')) || dirname(dir) === dir) return;
  }
}

/**
 * A config file not found where it was looked for, run from a subfolder (`clients/harbor/`): the
 * one of that name in a parent folder, named as a path from the folder looked in. Said, not used:
 * which file a run reads is the user's to say (-c).
 */
function configUpward(file: string): string | undefined {
  const start = dirname(file);
  for (const dir of foldersUp(start)) {
    if (dir === start) continue;
    const candidate = join(dir, basename(file));
    if (existsSync(candidate)) {
      const path = relative(start, candidate);
      return `no such file in ${start}; a parent folder holds ${path}: pass -c ${path}, or run from ${relative(start, dir) || '.'}`;
    }
    if (existsSync(join(dir, '.git'))) return `${MISSING['config file']}; looked in ${start} and each parent folder up to the repository's top, ${dir}`;
  }
  return undefined;
}

export async function readTextFile(file: string, what = 'config file'): Promise<string> {
  const fail = (message: string, line = 0, col = 0): never => {
    const d: Diagnostic = { file, line, col, message, severity: 'error' };
    throw new ConfigError([d]);
  };
  const tooBig = (size: string) => fail(`the file is ${size} MiB; ${aOrAn(what)} may be at most ${MAX_CONFIG_FILE_BYTES / 1048576} MiB`);
  // Synchronous where it cannot wait long (opening, a regular file): a one-file run then needs
  // no thread-pool round trips, which cost more than the reading. Pipes are read as they come.
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Standard input that is a socket (as when spawned by Node) cannot be opened by name: read the descriptor.
    const socket = code === 'ENXIO' ? descriptorOf(file) : undefined;
    if (socket !== undefined) {
      const bytes = await readStreamAtMost(socket === 0 ? process.stdin : createReadStream('', { fd: socket, autoClose: false }), MAX_CONFIG_FILE_BYTES);
      if (!bytes) return tooBig(`more than ${MAX_CONFIG_FILE_BYTES / 1048576}`);
      return decodeText(bytes, file, what);
    }
    if (code === 'ENOENT') return fail(what === 'config file' ? (configUpward(file) ?? MISSING[what]!) : (MISSING[what] ?? 'no such file'));
    if (code === 'EISDIR') return fail(`this is a folder, not a ${what}`);
    return fail(`cannot read the file (${code ?? String(err)})`);
  }
  try {
    const s = fstatSync(fd);
    if (s.isDirectory()) fail(`this is a folder, not a ${what}`);
    // A regular file's size is known: a huge one is refused before a byte is read.
    if (s.isFile() && s.size > MAX_CONFIG_FILE_BYTES) tooBig((s.size / 1048576).toFixed(1));
    const bytes = s.isFile() ? readAtMost(fd, MAX_CONFIG_FILE_BYTES) : await readStreamAtMost(createReadStream('', { fd, autoClose: false }), MAX_CONFIG_FILE_BYTES);
    if (!bytes) return tooBig(`more than ${MAX_CONFIG_FILE_BYTES / 1048576}`);
    return decodeText(bytes, file, what);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    return fail(code === 'EISDIR' ? `this is a folder, not a ${what}` : `cannot read the file (${code ?? String(err)})`);
  } finally {
    closeSync(fd);
  }
}

/** Everything up to end of file, or `undefined` once more than `limit` bytes came. */
function readAtMost(fd: number, limit: number): Buffer | undefined {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, limit + 1 - total));
    const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > limit) return undefined;
  }
}

/**
 * Whether a file has no folder of its own: a pipe (`<(git show …)`), or a name of a descriptor
 * (`-c /dev/stdin < sitesync.yaml`: stat sees the regular file behind it, whose folder is
 * unknown, and not /dev).
 */
export function hasNoFolder(file: string): boolean {
  return namesDescriptor(file) || !statSync(file, { throwIfNoEntry: false })?.isFile();
}

/** Why the files a file without a folder includes cannot be found; `copy` says how to give it in its folder. */
export function noFolderMessage(glob: string, copy = 'with the files it includes'): string {
  return `include "${glob}": this file was read from a pipe or standard input, which has no folder to find included files in; give the file in its folder (${copy})`;
}

/** The descriptor that /dev/stdin, /dev/fd/N or /proc/self/fd/N names. */
function descriptorOf(file: string): number | undefined {
  if (file === '/dev/stdin') return 0;
  const match = /^\/(?:dev|proc\/self)\/fd\/(\d+)$/.exec(file);
  return match ? Number(match[1]) : undefined;
}

async function readStreamAtMost(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    chunks.push(bytes);
    total += bytes.length;
    if (total > limit) {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      return undefined;
    }
  }
  return Buffer.concat(chunks, total);
}

/** UTF-8 text without a BOM, or a ConfigError that says where the file stops being text. */
export function decodeText(bytes: Uint8Array, file: string, what = 'config file'): string {
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    const { line, col } = positionOf(bytes, nul);
    throw new ConfigError([
      { file, line, col, message: `this is a binary file (a NUL byte), not a YAML ${what}`, severity: 'error' },
    ]);
  }
  // Node checks the whole file natively; only a file that fails is scanned for where.
  if (!isUtf8(bytes)) {
    const { line, col } = positionOf(bytes, firstInvalidUtf8(bytes));
    throw new ConfigError([
      { file, line, col, message: 'the file is not UTF-8 text (save it as UTF-8)', severity: 'error' },
    ]);
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function positionOf(bytes: Uint8Array, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      start = i + 1;
    }
  }
  return { line, col: offset - start + 1 };
}

/** The offset of the first byte that is not part of a well-formed UTF-8 sequence, or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}
