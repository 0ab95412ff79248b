/**
 * Reading a config-like file from disk (the I/O half of loading): refuses what cannot be a
 * config file (missing, a folder, huge, binary, not UTF-8) before any parsing is tried.
 */
import { readFile, stat } from 'node:fs/promises';
import { ConfigError, type Diagnostic } from '../errors.js';

/** Far above any real config (10,000 websites take about 1 MiB). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

export async function readTextFile(file: string, what = 'config file'): Promise<string> {
  const fail = (message: string, line = 0, col = 0): never => {
    const d: Diagnostic = { file, line, col, message, severity: 'error' };
    throw new ConfigError([d]);
  };
  let size: number;
  try {
    const s = await stat(file);
    if (s.isDirectory()) fail(`this is a folder, not a ${what}`);
    if (!s.isFile()) fail(`this is not a regular file`);
    size = s.size;
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      return fail(
        what === 'config file'
          ? 'no such file (write one, or start from the live account: sitesync export -o FILE)'
          : 'no such file',
      );
    }
    return fail(`cannot read the file (${code ?? String(err)})`);
  }
  if (size > MAX_FILE_BYTES) {
    fail(`the file is ${(size / 1048576).toFixed(1)} MiB; a ${what} may be at most ${MAX_FILE_BYTES / 1048576} MiB`);
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    return fail(`cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return decodeText(bytes, file, what);
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
  const bad = firstInvalidUtf8(bytes);
  if (bad >= 0) {
    const { line, col } = positionOf(bytes, bad);
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
