/**
 * Where the service is and which key to use, exactly as the contract's table says:
 * base URL from --base-url · SITESYNC_BASE_URL · api.base_url; the key from --api-key-file ·
 * SITESYNC_API_KEY, never from the file or an argument.
 */
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
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
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SitesyncError(`${source}: "${raw}" is not a URL (write it like https://analytics.example.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SitesyncError(`${source}: the base URL must start with https:// (not ${url.protocol})`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new SitesyncError(`${source}: the base URL must be a plain address, without credentials, query or fragment`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !flags.insecureHttp) {
    throw new SitesyncError(
      `refusing to send the API key over plain http:// to ${url.host}: use https://, or pass --insecure-http if you must`,
    );
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${url.origin}${path}`;
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

export async function resolveApiKey(flags: ConnectionFlags, env: Env): Promise<string> {
  if (flags.apiKeyFile !== undefined) {
    let text: string;
    try {
      text = await readFile(flags.apiKeyFile, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new SitesyncError(
        `--api-key-file ${flags.apiKeyFile}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'this is a folder' : `cannot read it (${code})`}`,
      );
    }
    const key = text.trim();
    if (key === '') throw new SitesyncError(`--api-key-file ${flags.apiKeyFile}: the file is empty`);
    if (/\s/.test(key)) throw new SitesyncError(`--api-key-file ${flags.apiKeyFile}: the file holds more than one word; it should hold only the key`);
    return key;
  }
  const key = env.SITESYNC_API_KEY?.trim();
  if (key) return key;
  throw new SitesyncError('no API key: set SITESYNC_API_KEY, or pass --api-key-file FILE (the key is never read from the config file)');
}

export async function resolveConnection(flags: ConnectionFlags, env: Env, fromFile?: string): Promise<Connection> {
  const baseUrl = resolveBaseUrl(flags, env, fromFile);
  const apiKey = await resolveApiKey(flags, env);
  return { baseUrl, apiKey };
}
