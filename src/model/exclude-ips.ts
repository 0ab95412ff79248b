/**
 * `exclude_ips` entries. The service stores them verbatim and never validates them; its tracker
 * compares each visitor with an exact-address-or-CIDR matcher, so an entry that is neither
 * (`office-router`, `192.168.1.*`) is kept but never excludes anyone. sitesync accepts such an
 * entry, so that a file exported from the account still plans clean, and warns about it.
 */
import ipaddr from 'ipaddr.js';

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * Entries already checked. Agencies list the same office addresses on many websites, and a
 * check through ipaddr.js costs microseconds: 10,000 websites spent some 15 ms here. Bounded,
 * for programs that load many files through the API.
 */
const checked = new Map<string, boolean>();
const CHECKED_MAX = 4096;

/** An IPv4 or IPv6 address, or a CIDR range of one: what the service's matcher can match. */
export function isIpOrCidr(text: string): boolean {
  let known = checked.get(text);
  if (known === undefined) {
    if (checked.size >= CHECKED_MAX) checked.clear();
    checked.set(text, (known = check(text)));
  }
  return known;
}

function check(text: string): boolean {
  const [address, prefix, ...rest] = text.split('/');
  if (address === undefined || rest.length) return false;
  let bits: number;
  if (IPV4.test(address)) bits = 32;
  else if (ipaddr.IPv6.isValid(address) && !address.includes('%')) bits = 128;
  else return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= bits;
}

/** Why an entry never matches a visitor, for a warning; undefined when it can match. */
export function neverMatchingReason(entry: string): string | undefined {
  if (isIpOrCidr(entry)) return undefined;
  return `"${entry}" is not an IPv4 or IPv6 address or CIDR range: the service keeps it, but never matches a visitor with it`;
}
