/** Generated inputs for the benchmarks: large config files and matching live websites. */
import type { WebsiteInput } from '../src/emulator/index.js';
import type { LiveWebsite } from '../src/model/types.js';
import { toLiveWebsite } from '../src/service/wire.js';

export function siteDomain(i: number): string {
  return `site-${String(i).padStart(5, '0')}.example.com`;
}

/** A config file with `n` websites that use every kind of field. */
export function bigConfig(n: number): string {
  const lines = [
    '# yaml-language-server: $schema=./schemas/sitesync.schema.json',
    'version: 1',
    'defaults:',
    '  exclude_bots: true',
    '  exclude_params: [utm_source, utm_medium, fbclid]',
    'protect: ["*.shop.example.com"]',
    'ignore: ["*.sandbox.example.com"]',
    'websites:',
  ];
  for (let i = 0; i < n; i++) {
    lines.push(`  - domain: ${siteDomain(i)}`);
    if (i % 3 === 0) lines.push('    privacy: private');
    if (i % 5 === 0) lines.push('    email: true');
    if (i % 7 === 0) lines.push(`    exclude_ips: [203.0.113.${i % 250}, "2001:db8::/32"]`);
    if (i % 11 === 0) lines.push('    exclude_params: [gclid, ref]');
  }
  return `${lines.join('\n')}\n`;
}

/** The live websites that match `bigConfig(n)` exactly. */
export function matchingWebsites(n: number): WebsiteInput[] {
  const out: WebsiteInput[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      domain: siteDomain(i),
      privacy: i % 3 === 0 ? 1 : 0,
      email: i % 5 === 0 ? 1 : 0,
      exclude_bots: 1,
      exclude_params: i % 11 === 0 ? 'gclid\nref' : 'utm_source\nutm_medium\nfbclid',
      exclude_ips: i % 7 === 0 ? `203.0.113.${i % 250}\n2001:db8::/32` : null,
    });
  }
  return out;
}

/**
 * `n` live websites of a large agency's account as the deployed product returns them (no
 * exclude_params), every field it returns set on many: what the largest real export holds.
 */
export function agencyWebsites(n: number): LiveWebsite[] {
  return Array.from({ length: n }, (_, i) =>
    toLiveWebsite({
      id: i + 1,
      domain: `client-${String(i).padStart(6, '0')}.agency-example.com`,
      privacy: i % 3,
      email: i % 2,
      exclude_bots: i % 4 === 0 ? 0 : 1,
      password: i % 3 === 2,
      exclude_ips: i % 2 ? `203.0.113.${i % 250}\n198.51.100.0/24\n2001:db8::/32` : null,
      favorite: i % 10 === 0,
    }),
  );
}
