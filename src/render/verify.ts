/**
 * What `sitesync verify` prints: one line a website, grouped by account when the file names
 * them. Everything that came from a page (a `data-host`, a host, an error's words) is data:
 * escaped where it lands (terminal, markdown, JSON). Pure.
 */
import { jsonUnicodeEscapes, markdownCode, printable } from '../messages/escape.js';
import type { Colors } from '../io/terminal.js';
import type { Finding } from '../verify/findings.js';
import { MAX_PAGE_BYTES } from '../caps.js';


const MIB = MAX_PAGE_BYTES / 1024 / 1024;

/** What a finding means, in words; `code` wraps what came from the page. */
export function findingWords(f: Finding, code: (text: string) => string): string {
  const cut = f.truncated ? ` (only the first ${MIB} MiB of the page was read)` : '';
  switch (f.verdict) {
    case 'tracked':
      return `tracked${cut}`;
    case 'no-code':
      return `no tracking code in the page it serves${cut} (a code that a script adds later is not seen)`;
    case 'other-installation':
      return `the tracking code sends to another installation: ${code(f.dataHost ?? '')}`;
    case 'other-host':
      return `the page is served from ${code(f.host ?? '')}, not this website: its hits are refused, or counted in whichever account holds ${code(f.host ?? '')}`;
    case 'unreachable':
      return `unreachable: ${code(f.reason ?? '')}`;
  }
}

export function verifyCounts(findings: readonly Finding[]): string {
  const tracked = findings.filter((f) => f.verdict === 'tracked').length;
  return `${tracked} of ${findings.length} ${findings.length === 1 ? 'website' : 'websites'} tracked`;
}

export function renderVerifyText(findings: readonly Finding[], c: Colors): string {
  const out: string[] = [];
  let account: string | undefined;
  for (const f of findings) {
    if (f.account && f.account !== account) out.push(c.bold(`${printable(f.account)}:`));
    account = f.account;
    const mark = f.verdict === 'tracked' ? c.green('✓') : c.red('✗');
    const words = findingWords(f, printable);
    out.push(`${f.account ? '  ' : ''}${mark} ${printable(f.domain)}: ${f.verdict === 'tracked' ? words : c.yellow(words)}`);
  }
  out.push('', verifyCounts(findings));
  return `${out.join('\n')}\n`;
}

/** A table a website, for a pull request, a job summary or an issue. */
export function renderVerifyMarkdown(findings: readonly Finding[]): string {
  const named = findings.some((f) => f.account);
  const head = named ? '| account | website | tracking |\n|---|---|---|' : '| website | tracking |\n|---|---|';
  const rows = findings.map((f) => {
    // The words around are sitesync's own; what came from the page goes in code.
    const words = `${f.verdict === 'tracked' ? '✅' : '❌'} ${findingWords(f, markdownCode)}`;
    return named ? `| ${markdownCode(f.account)} | ${markdownCode(f.domain)} | ${words} |` : `| ${markdownCode(f.domain)} | ${words} |`;
  });
  return `### Tracking code check: ${verifyCounts(findings)}\n\n${head}\n${rows.join('\n')}\n`;
}

export function renderVerifyJson(findings: readonly Finding[]): string {
  const websites = findings.map((f) => ({
    account: f.account || null,
    domain: f.domain,
    verdict: f.verdict,
    url: f.url ?? null,
    ...(f.dataHost !== undefined ? { data_host: f.dataHost } : {}),
    ...(f.host !== undefined ? { host: f.host } : {}),
    ...(f.reason !== undefined ? { reason: f.reason } : {}),
    ...(f.truncated ? { truncated: true } : {}),
    message: findingWords(f, (t) => t),
  }));
  return `${jsonUnicodeEscapes(JSON.stringify({ tracked: findings.every((f) => f.verdict === 'tracked'), websites }, null, 2))}\n`;
}
