/**
 * Where the service is and which key to use, exactly as the contract's table says:
 * base URL from --base-url · SITESYNC_BASE_URL · api.base_url; the key from --api-key-file ·
 * SITESYNC_API_KEY, never from the file or an argument.
 */
import ipaddr from 'ipaddr.js';
import { SitesyncError } from '../errors.js';
import type { Env } from '../config/interpolate.js';

export interface ConnectionFlags {
  baseUrl?: string;
  apiKeyFile?: string;
  insecureHttp?: boolean;
}

export interface Connection {
  /** Normalized: no trailing slash. */
  baseUrl: string;
  apiKey: string;
}

/** The address rule for the service's base URL, wherever it is written. */
export const BASE_URL_RULE: AddressRule = {
  secret: 'the API key',
  secretFrom: 'SITESYNC_API_KEY or --api-key-file',
  example: 'https://analytics.example.com',
  insecureHint: 'pass --insecure-http if you must',
};

export function resolveBaseUrl(flags: ConnectionFlags, env: Env, fromFile?: string): string {
  const [raw, source] =
    flags.baseUrl !== undefined
      ? [flags.baseUrl, '--base-url']
      : env.SITESYNC_BASE_URL
        ? [env.SITESYNC_BASE_URL, 'SITESYNC_BASE_URL']
        : fromFile !== undefined
          ? [fromFile, 'api.base_url']
          : [undefined, ''];
  if (raw === undefined || raw.trim() === '') {
    throw new SitesyncError('no base URL: pass --base-url URL, set SITESYNC_BASE_URL, or write api.base_url in the file');
  }
  const url = checkedAddress(raw, source, { ...BASE_URL_RULE, insecureHttp: flags.insecureHttp });
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${url.origin}${path}`;
}

/**
 * The one rule for an address sitesync sends a secret to (the service's base URL, the GitHub and
 * GitLab APIs): https://, or plain http:// only to this machine (the emulator, tests' fakes) or
 * when the user says so; a plain address, with no credentials, query or fragment in it.
 */
export interface AddressRule {
  /** What is sent there, and where it comes from, for the messages: "the API key", "SITESYNC_API_KEY". */
  secret: string;
  secretFrom: string;
  /** The address written right, for the message. */
  example: string;
  /** Plain http:// to another machine is allowed (--insecure-http). */
  insecureHttp?: boolean;
  /** How to allow plain http:// anyway, where there is a way. */
  insecureHint?: string;
}

/** What is wrong with `text` as such an address, worded to follow its name; undefined when nothing is. */
export function addressProblem(text: string, rule: AddressRule): string | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return `"${text}" is not a URL (write it like ${rule.example})`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must start with https:// (not ${url.protocol})`;
  if (url.username || url.password) return `must not hold credentials (user:password@): ${rule.secret} comes from ${rule.secretFrom}`;
  const extras = [url.search && 'a query (?…)', url.hash && 'a fragment (#…)'].filter(Boolean);
  if (extras.length) return `must be a plain address, without ${extras.join(' or ')}`;
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !rule.insecureHttp) {
    const allowed = rule.insecureHint ? `, or ${rule.insecureHint}` : ' (plain http:// only to this machine)';
    return `refusing to send ${rule.secret} over plain http:// to ${url.host}: use https://${allowed}`;
  }
  return undefined;
}

/** `raw` as a URL if it passes the rule; else an error that names where it came from (`where`). */
export function checkedAddress(raw: string, where: string, rule: AddressRule): URL {
  const problem = addressProblem(raw, rule);
  if (problem) throw new SitesyncError(`${where}: ${problem}`);
  return new URL(raw.trim());
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  // ipaddr.js rather than node:net, which the offline commands would otherwise load for this alone.
  if (ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.IPv6.isValid(host)) return ipaddr.parse(host).range() === 'loopback';
  return false;
}

/** A key file larger than this is not a key (and /dev/zero is not read for ever). */
export const MAX_KEY_FILE_BYTES = 4096;

export async function resolveApiKey(flags: ConnectionFlags, env: Env): Promise<string> {
  if (flags.apiKeyFile !== undefined) {
    const where = `--api-key-file ${flags.apiKeyFile}`;
    const text = await readKeyFile(flags.apiKeyFile, where);
    if (text.trim() === '') throw new SitesyncError(`${where}: the file is empty`);
    return checkedKey(text, where);
  }
  const raw = env.SITESYNC_API_KEY;
  if (raw !== undefined && raw.trim() !== '') return checkedKey(raw, 'SITESYNC_API_KEY');
  throw new SitesyncError('no API key: set SITESYNC_API_KEY, or pass --api-key-file FILE (the key is never read from the config file)');
}

/** At most MAX_KEY_FILE_BYTES + 1 bytes: enough to tell a key from anything else. */
async function readKeyFile(path: string, where: string): Promise<string> {
  let handle;
  try {
    // node:fs/promises loaded here: the offline commands load this module for its rules alone.
    handle = await process.getBuiltinModule('node:fs/promises').open(path, 'r');
    const buffer = Buffer.alloc(MAX_KEY_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_KEY_FILE_BYTES) {
        throw new SitesyncError(`${where} is not an API key: the file holds more than ${MAX_KEY_FILE_BYTES / 1024} KiB`);
      }
    }
    return buffer.subarray(0, length).toString('utf8');
  } catch (error) {
    if (error instanceof SitesyncError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new SitesyncError(
      `${where}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'this is a folder' : code === 'EACCES' ? 'permission denied' : `cannot read it (${code})`}`,
    );
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * The key, trimmed, if it can go into an Authorization header as it is; otherwise refused at
 * once (a request would fail, or be retried, with a header it cannot carry). The message says
 * what is wrong and never shows the key.
 */
function checkedKey(raw: string, where: string): string {
  const key = raw.trim();
  const problem = keyProblem(key);
  if (problem) throw new SitesyncError(`${where} is not an API key: ${problem}`);
  return key;
}

export function keyProblem(key: string): string | undefined {
  if (/[\r\n]/.test(key)) return 'it holds a line break (only the key, on one line, may be there)';
  if (/[\x00-\x08\x0b-\x1f\x7f]/.test(key)) return 'it holds control characters (is it a binary file?)';
  if (/[\t ]/.test(key)) return 'it holds more than one word (white space inside)';
  if (/[^\x21-\x7e]/.test(key)) return 'it holds characters outside printable ASCII';
  return undefined;
}

export async function resolveConnection(flags: ConnectionFlags, env: Env, fromFile?: string): Promise<Connection> {
  const baseUrl = resolveBaseUrl(flags, env, fromFile);
  const apiKey = await resolveApiKey(flags, env);
  return { baseUrl, apiKey };
}
