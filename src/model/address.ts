/**
 * The one rule for an address sitesync sends a secret to (the service's base URL, the GitHub and
 * GitLab APIs), and what makes two base URLs one installation. Below the config reader, the
 * service client and the CI helpers, which all apply it.
 */
import ipaddr from 'ipaddr.js';
import { SitesyncError } from '../messages/errors.js';

/** The address rule for the service's base URL, wherever it is written. */
export const BASE_URL_RULE: AddressRule = {
  secret: 'the API key',
  secretFrom: 'SITESYNC_API_KEY or --api-key-file',
  example: 'https://analytics.example.com',
  insecureHint: 'pass --insecure-http if you must',
};

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
  if (ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.IPv6.isValid(host)) return ipaddr.parse(host).range() === 'loopback';
  return false;
}


/**
 * The installation a base URL names, as one string: scheme and host in lower case, the default
 * port dropped, without a trailing slash or the API path. `http://LOCALHOST:80/stats/` and
 * `http://localhost/stats` are one installation; its accounts share one throttle and one set of
 * domains.
 */
export function installationOf(baseUrl: string): string {
  const url = new URL(baseUrl.trim());
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '').replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`.toLowerCase();
}
