/**
 * What `sitesync verify` says of a website's page, decided from what was fetched: the tracking
 * code found by a real HTML tokenizer (parse5's, the WHATWG algorithm browsers use, so markup built
 * to confuse a hand-made matcher reads as a browser reads it), its `data-host` against the account's
 * installation, and the host the page was served from against the website's domain, as the
 * product's tracker matches them. Pure.
 */
import { domainToASCII } from 'node:url';
import { SAXParser } from 'parse5-sax-parser';

/** The id of the product's tracking code (`resources/views/shared/tracking-code.blade.php`). */
export const TRACKING_CODE_ID = 'ZwSg9rf6GA';

export type Verdict = 'tracked' | 'no-code' | 'other-installation' | 'other-host' | 'unreachable';

export interface Finding {
  /** '' for the one account of a single-account file. */
  account: string;
  domain: string;
  verdict: Verdict;
  /** The page's address after redirects (undefined when none was read). */
  url?: string;
  /** other-installation: the code's `data-host`. */
  dataHost?: string;
  /** other-host: the host the page is served from, without `www.`. */
  host?: string;
  /** unreachable: why (DNS, TLS, status, deadline). */
  reason?: string;
  /** The page was longer than the cap: only its start was read. */
  truncated?: boolean;
}

/** A page as fetched: its address after redirects, its text (up to the cap), whether it was cut. */
export interface FetchedPage {
  url: string;
  html: string;
  truncated: boolean;
}

/**
 * The tracking code of a page: the `data-host` of the element with the code's id (a `<script>` as
 * the product writes it), else of a `<script>` whose `src` ends in `/js/script.js` and has a
 * `data-host`; undefined when there is none. The page is tokenized as a browser tokenizes it
 * (comments, `<textarea>`, a script's text are no elements) in time linear in its length: no tree
 * is built, so no markup can make the read quadratic. A code that a script adds later is not in
 * the page.
 */
export function findTrackingCode(html: string): { dataHost: string } | undefined {
  const parser = new SAXParser();
  let found: string | undefined;
  let fallback: string | undefined;
  parser.on('startTag', (tag) => {
    const attr = (name: string) => tag.attrs.find((a) => a.name === name)?.value;
    const host = attr('data-host');
    if (host === undefined) return;
    if (attr('id') === TRACKING_CODE_ID) {
      found = host;
      parser.stop();
    } else if (tag.tagName === 'script' && fallback === undefined && /\/js\/script\.js(?:[?#].*)?$/.test(attr('src') ?? '')) {
      fallback = host;
    }
  });
  // Written whole, the tokens are read before end() returns.
  parser.end(html);
  const dataHost = found ?? fallback;
  return dataHost === undefined ? undefined : { dataHost };
}

/** A host as the tracker looks a website up: lower case, ASCII, and once it starts with `www.`, every `www.` gone. */
export function trackedHost(host: string): string {
  const ascii = (domainToASCII(host.replace(/\.$/, '')) || host).toLowerCase();
  return ascii.startsWith('www.') ? ascii.replaceAll('www.', '') : ascii;
}

/** An installation's address as compared: scheme, host and path, without a trailing `/`. */
function installationOf(url: string): string | undefined {
  try {
    const u = new URL(url.trim());
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`.toLowerCase();
  } catch {
    return undefined;
  }
}

/** What a fetched page means for a website of an account whose installation is `baseUrl`. */
export function verdictOf(account: string, domain: string, baseUrl: string, page: FetchedPage): Finding {
  const base = { account, domain, url: page.url, ...(page.truncated ? { truncated: true } : {}) };
  const host = trackedHost(new URL(page.url).hostname.replace(/^\[|\]$/g, ''));
  if (host !== trackedHost(domain)) return { ...base, verdict: 'other-host', host };
  const code = findTrackingCode(page.html);
  if (!code) return { ...base, verdict: 'no-code' };
  if (installationOf(code.dataHost) !== installationOf(baseUrl)) return { ...base, verdict: 'other-installation', dataHost: code.dataHost };
  return { ...base, verdict: 'tracked' };
}
