/**
 * Reading a config-like file (the I/O half of loading): what cannot be one (missing, a folder, huge,
 * binary, not UTF-8) is refused before parsing. A pipe (`-c /dev/stdin`) is read too, within the size cap.
 */
import { closeSync, createReadStream, existsSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { ConfigError, refuseFile } from '../messages/errors.js';
import { namesDescriptor } from '../io/files.js';
import { MAX_CONFIG_FILE_BYTES } from '../caps.js';

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

/** A config not found from a subfolder: one of its name in a folder above, said, not used (-c says what a run reads). */
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

export async function readTextFile(file: string, what = 'config file', keepBom = false): Promise<string> {
  const fail = (message: string) => refuseFile(file, message);
  const read = (bytes?: Buffer) => (bytes ? decodeText(bytes, file, what, keepBom) : fail(tooLarge(`more than ${MAX_CONFIG_FILE_BYTES / 1048576}`, what)));
  // Synchronous where it cannot wait long (opening, a regular file): thread-pool round trips cost more than the reading.
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Standard input that is a socket (as when spawned by Node) cannot be opened by name: read the descriptor.
    const socket = code === 'ENXIO' ? descriptorOf(file) : undefined;
    if (socket !== undefined) return read(await readStreamAtMost(socket === 0 ? process.stdin : createReadStream('', { fd: socket, autoClose: false })));
    if (code === 'ENOENT') return fail(what === 'config file' ? (configUpward(file) ?? MISSING[what]!) : (MISSING[what] ?? 'no such file'));
    if (code === 'EISDIR') return fail(`this is a folder, not a ${what}`);
    return fail(`cannot read the file (${code ?? String(err)})`);
  }
  try {
    const s = fstatSync(fd);
    if (s.isDirectory()) fail(`this is a folder, not a ${what}`);
    // A regular file's size is known: a huge one is refused before a byte is read.
    if (s.isFile() && s.size > MAX_CONFIG_FILE_BYTES) fail(tooLarge((s.size / 1048576).toFixed(1), what));
    if (!s.isFile()) return read(await readStreamAtMost(createReadStream('', { fd, autoClose: false })));
    const bytes = readFileSync(fd);
    return read(bytes.length > MAX_CONFIG_FILE_BYTES ? undefined : bytes);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    return fail(`cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  } finally {
    closeSync(fd);
  }
}

/** The message for a file of `size` MiB, more than `what` may hold (`at`: the revision it is read at). */
export function tooLarge(size: string, what: string, at = ''): string {
  return `the file is ${size} MiB${at}; ${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what} may be at most ${MAX_CONFIG_FILE_BYTES / 1048576} MiB`;
}

/** Whether a file has no folder of its own: a pipe, or a name of a descriptor (`-c /dev/stdin < sitesync.yaml`). */
export function hasNoFolder(file: string): boolean {
  return namesDescriptor(file) || !statSync(file, { throwIfNoEntry: false })?.isFile();
}

/** The descriptor that /dev/stdin, /dev/fd/N or /proc/self/fd/N names. */
function descriptorOf(file: string): number | undefined {
  if (file === '/dev/stdin') return 0;
  const match = /^\/(?:dev|proc\/self)\/fd\/(\d+)$/.exec(file);
  return match ? Number(match[1]) : undefined;
}

/** Everything the stream holds, or `undefined` once more than MAX_CONFIG_FILE_BYTES came (a pipe has no size to stat). */
async function readStreamAtMost(stream: NodeJS.ReadableStream): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    chunks.push(bytes);
    total += bytes.length;
    // Leaving the loop destroys the stream.
    if (total > MAX_CONFIG_FILE_BYTES) return undefined;
  }
  return Buffer.concat(chunks, total);
}

/** UTF-8 text, without a BOM unless `ignoreBOM`, or a ConfigError that says where the file stops being text. */
export function decodeText(bytes: Uint8Array, file: string, what: string, ignoreBOM = false): string {
  const fail = (offset: number, message: string): never => {
    const before = bytes.subarray(0, offset);
    const start = before.lastIndexOf(0x0a) + 1;
    const line = before.reduce((n, byte) => (byte === 0x0a ? n + 1 : n), 1);
    refuseFile(file, message, { line, col: offset - start + 1 });
  };
  const nul = bytes.indexOf(0);
  if (nul >= 0) fail(nul, `this is a binary file (a NUL byte), not a YAML ${what}`);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM }).decode(bytes);
  } catch {
    // At the first U+FFFD the file does not hold as EF BF BD, counted on from the last (millions are read once).
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    for (let i = text.indexOf('\ufffd'), from = 0, at = 0; ; from = i, i = text.indexOf('\ufffd', i + 1)) {
      at += Buffer.byteLength(text.slice(from, i));
      if (bytes[at] !== 0xef || bytes[at + 1] !== 0xbf || bytes[at + 2] !== 0xbd) return fail(at, 'the file is not UTF-8 text (save it as UTF-8)');
    }
  }
}
