/**
 * Where the service is and which key to use, as the contract's table says (--base-url · SITESYNC_BASE_URL ·
 * api.base_url; --api-key-file · SITESYNC_API_KEY): the key never from the file or an argument.
 */
import { createReadStream } from 'node:fs';
import { buffer } from 'node:stream/consumers';
import { SitesyncError } from '../messages/errors.js';
import { BASE_URL_RULE, checkedAddress } from '../model/address.js';
import type { Env } from '../io/context.js';
import { MAX_KEY_FILE_BYTES } from '../caps.js';

export interface ConnectionFlags {
  baseUrl?: string;
  apiKeyFile?: string;
  insecureHttp?: boolean;
}

/** Normalized: no trailing slash, no /api/v1. */
export function resolveBaseUrl(flags: ConnectionFlags, env: Env, fromFile?: string): string {
  const [raw, source] =
    flags.baseUrl !== undefined
      ? [flags.baseUrl, '--base-url']
      : env.SITESYNC_BASE_URL
        ? [env.SITESYNC_BASE_URL, 'SITESYNC_BASE_URL']
        : [fromFile, 'api.base_url'];
  if (raw === undefined || raw.trim() === '') {
    throw new SitesyncError('no base URL: pass --base-url URL, set SITESYNC_BASE_URL, or write api.base_url in the file');
  }
  const url = checkedAddress(raw, source, { ...BASE_URL_RULE, insecureHttp: flags.insecureHttp });
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${url.origin}${path}`;
}

/** The key, trimmed, if it can go into an Authorization header; no message shows it. */
export async function resolveApiKey(flags: ConnectionFlags, env: Env): Promise<string> {
  const where = flags.apiKeyFile === undefined ? 'SITESYNC_API_KEY' : `--api-key-file ${flags.apiKeyFile}`;
  const key = (flags.apiKeyFile === undefined ? (env.SITESYNC_API_KEY ?? '') : await readKeyFile(flags.apiKeyFile, where)).trim();
  if (key === '' && flags.apiKeyFile !== undefined) throw new SitesyncError(`${where}: the file is empty`);
  if (key === '') throw new SitesyncError('no API key: set SITESYNC_API_KEY, or pass --api-key-file FILE (the key is never read from the config file)');
  const problem = keyProblem(key);
  if (problem) throw new SitesyncError(`${where} is not an API key: ${problem}`);
  return key;
}

/** At most MAX_KEY_FILE_BYTES + 1 bytes (the path may be /dev/zero). */
async function readKeyFile(path: string, where: string): Promise<string> {
  const data = await buffer(createReadStream(path, { end: MAX_KEY_FILE_BYTES })).catch(({ code }: NodeJS.ErrnoException) => {
    throw new SitesyncError(
      `${where}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'this is a folder' : code === 'EACCES' ? 'permission denied' : `cannot read it (${code})`}`,
    );
  });
  if (data.length > MAX_KEY_FILE_BYTES) throw new SitesyncError(`${where} is not an API key: the file holds more than ${MAX_KEY_FILE_BYTES / 1024} KiB`);
  return data.toString('utf8');
}

export function keyProblem(key: string): string | undefined {
  if (/[\r\n]/.test(key)) return 'it holds a line break (only the key, on one line, may be there)';
  if (/[\x00-\x08\x0b-\x1f\x7f]/.test(key)) return 'it holds control characters (is it a binary file?)';
  if (/[\t ]/.test(key)) return 'it holds more than one word (white space inside)';
  if (/[^\x21-\x7e]/.test(key)) return 'it holds characters outside printable ASCII';
}
