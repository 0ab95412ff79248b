/**
 * `sitesync verify` against HTTPS websites on loopback (a test CA through NODE_EXTRA_CA_CERTS,
 * `--connect-to` mapping the clients' names to them): the CLI as a child process, as TLS trust
 * is the process's. Nothing here reaches the internet.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConnectTo } from '../../src/verify/fetch.js';
import { findTrackingCode, trackedHost } from '../../src/verify/findings.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { code, html, redirect, startProxy, startSites, TEST_CA, type Page, type Sites } from './sites.js';

const INSTALL = 'https://analytics.example.net';
const KEY = 'sk-verify-KEY-0123456789';
let sites: Sites;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-verify-'));
});
afterEach(async () => {
  await sites?.close();
  await rm(dir, { recursive: true, force: true });
});

async function verify(domains: string[], args: string[] = [], env: Record<string, string> = {}): Promise<CliResult> {
  await writeFile(join(dir, 'sitesync.yaml'), `version: 1\nwebsites:\n${domains.map((d) => `  - domain: ${d}\n`).join('')}`);
  const r = await runCli(['verify', '--connect-to', sites.connectTo, ...args], {
    cwd: dir,
    env: { SITESYNC_BASE_URL: INSTALL, SITESYNC_API_KEY: KEY, NODE_EXTRA_CA_CERTS: TEST_CA, ...env },
  });
  expect(r.stdout + r.stderr).not.toContain(KEY);
  // Nothing of a page reaches the terminal raw.
  expect(r.stdout + r.stderr).not.toContain('\x1b');
  return r;
}

const endless: Page = (_, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  const chunk = Buffer.alloc(64 * 1024, '<div>');
  let sent = 0;
  const more = () => {
    // A gigabyte, if anyone read it.
    while (sent < 1024 ** 3 && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  res.on('error', () => undefined);
  more();
};

const drip: Page = (_, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.write('<html><head>');
  const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 200);
  res.on('close', () => clearInterval(timer));
};

describe('sitesync verify', { timeout: 120_000 }, () => {
  it('one line a website: tracked, no code, another installation, another host, www., a code a script adds, a huge page, a 500, a redirect loop', async () => {
    sites = await startSites({
      'tracked.example.com': html(code(INSTALL)),
      'nocode.example.com': html(''),
      'other.example.com': html(code('https://stats.elsewhere.example.org')),
      'moved.example.com': redirect('https://newbrand.example.org/'),
      'newbrand.example.org': html(code(INSTALL)),
      'example.org': redirect('https://www.example.org/'),
      'www.example.org': html(code(INSTALL)),
      'script.example.com': html(`<script>document.write('<script data-host="${INSTALL}" src="${INSTALL}/js/script.js" id="ZwSg9rf6GA"><\\/script>')</script>`),
      'fallback.example.com': html(`<script data-host="${INSTALL}/" src="https://cdn.example.org/js/script.js" async></script>`),
      'hostile.example.com': html(`<!-- <script id="ZwSg9rf6GA" data-host="${INSTALL}"></script> --><script data-host="https://evil.example.org/\x1b[2J\x1b[31mred" id="ZwSg9rf6GA"></script>`),
      'huge.example.com': endless,
      'broken.example.com': (_, res) => {
        res.writeHead(500);
        res.end('oops');
      },
      'loop.example.com': redirect('https://loop.example.com/again'),
    });
    const domains = [
      'tracked.example.com',
      'nocode.example.com',
      'other.example.com',
      'moved.example.com',
      'example.org',
      'script.example.com',
      'fallback.example.com',
      'hostile.example.com',
      'huge.example.com',
      'broken.example.com',
      'loop.example.com',
    ];
    const r = await verify(domains);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    const lines = r.stdout.split('\n');
    const line = (domain: string) => lines.find((l) => l.includes(` ${domain}: `));
    expect(line('tracked.example.com')).toBe('✓ tracked.example.com: tracked');
    expect(line('nocode.example.com')).toBe('✗ nocode.example.com: no tracking code in the page it serves (a code that a script adds later is not seen)');
    expect(line('other.example.com')).toBe('✗ other.example.com: the tracking code sends to another installation: https://stats.elsewhere.example.org');
    expect(line('moved.example.com')).toBe(
      '✗ moved.example.com: the page is served from newbrand.example.org, not this website: its hits are refused, or counted in whichever account holds newbrand.example.org',
    );
    expect(line('example.org')).toBe('✓ example.org: tracked');
    expect(line('script.example.com')).toContain('no tracking code in the page it serves');
    expect(line('fallback.example.com')).toBe('✓ fallback.example.com: tracked');
    expect(line('hostile.example.com')).toBe('✗ hostile.example.com: the tracking code sends to another installation: https://evil.example.org/\\x1b[2J\\x1b[31mred');
    expect(line('huge.example.com')).toBe(
      '✗ huge.example.com: no tracking code in the page it serves (only the first 2 MiB of the page was read) (a code that a script adds later is not seen)',
    );
    expect(line('broken.example.com')).toBe('✗ broken.example.com: unreachable: HTTP 500 from https://broken.example.com/');
    expect(line('loop.example.com')).toBe('✗ loop.example.com: unreachable: more than 5 redirects (the last to https://loop.example.com/again)');
    expect(r.stdout).toContain('\n3 of 11 websites tracked\n');
    // The loop: the first request and 5 redirects, no more.
    expect(sites.hits.filter((h) => h === 'loop.example.com')).toHaveLength(6);
  });

  it('a page that drips a byte at a time ends at the deadline, said so', async () => {
    sites = await startSites({ 'slow.example.com': drip, 'a.example.com': html(code(INSTALL)) });
    const r = await verify(['slow.example.com', 'a.example.com'], ['--deadline', '2']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('✗ slow.example.com: unreachable: deadline: no whole answer from slow.example.com within 2 s\n');
    expect(r.stdout).toContain('✓ a.example.com: tracked\n');
  });

  it('every website tracked: exit 0; json and markdown say the same', async () => {
    sites = await startSites({ 'a.example.com': html(code(INSTALL)), 'b.example.com': html(code(`${INSTALL}/`)) });
    const r = await verify(['a.example.com', 'b.example.com']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('2 of 2 websites tracked');
    const json = JSON.parse((await verify(['a.example.com', 'b.example.com'], ['--format', 'json'])).stdout);
    expect(json).toMatchObject({ tracked: true, websites: [{ domain: 'a.example.com', verdict: 'tracked', url: 'https://a.example.com/' }, { domain: 'b.example.com', verdict: 'tracked' }] });
    const md = await verify(['a.example.com', 'b.example.com'], ['--format', 'markdown']);
    expect(md.stdout).toContain('### Tracking code check: 2 of 2 websites tracked');
    expect(md.stdout).toContain('| `a.example.com` | ✅ tracked |');
  });

  it('a hostile page in markdown and JSON: its data-host is code, never markup or a raw escape', async () => {
    sites = await startSites({ 'a.example.com': html(`<script id="ZwSg9rf6GA" data-host="https://x.example.org/|<img src=x>@team\x1b]8;;"></script>`) });
    const md = await verify(['a.example.com'], ['--format', 'markdown']);
    expect(md.code).toBe(2);
    expect(md.stdout).not.toContain('<img');
    expect(md.stdout).toContain('<code>https://x.example.org/\\|&lt;img src=x&gt;@&#8203;team\\\\x1b\\]8;;</code>');
    const json = await verify(['a.example.com'], ['--format', 'json']);
    expect(JSON.parse(json.stdout).websites[0].data_host).toBe('https://x.example.org/|<img src=x>@team\x1b]8;;');
  });

  it('TLS is verified: without the test CA the site is unreachable, said so', async () => {
    sites = await startSites({ 'a.example.com': html(code(INSTALL)) });
    const r = await verify(['a.example.com'], [], { NODE_EXTRA_CA_CERTS: '' });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/✗ a\.example\.com: unreachable: TLS: /);
  });

  it('HTTPS_PROXY is honoured: the page is fetched through the proxy (CONNECT), the certificate still checked for the website', async () => {
    sites = await startSites({ 'a.example.com': html(code(INSTALL)) });
    const proxy = await startProxy(sites);
    try {
      await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
      const r = await runCli(['verify'], {
        cwd: dir,
        env: { SITESYNC_BASE_URL: INSTALL, SITESYNC_API_KEY: KEY, NODE_EXTRA_CA_CERTS: TEST_CA, HTTPS_PROXY: proxy.url },
      });
      expect(r.stdout).toContain('✓ a.example.com: tracked');
      expect(r.code).toBe(0);
      expect(proxy.asked).toEqual(['a.example.com:443']);
    } finally {
      await proxy.close();
    }
  });

  it('a bad --connect-to is a usage error: exit 1, nothing fetched', async () => {
    sites = await startSites({});
    const r = await verify(['a.example.com'], ['--connect-to', 'nonsense']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--connect-to must be HOST1:PORT1:HOST2:PORT2');
    expect(sites.hits).toEqual([]);
  });
});

describe('verify, pure parts', () => {
  it('--connect-to reads as curl’s', () => {
    expect(parseConnectTo('a.example.com:443:127.0.0.1:8443')).toEqual({ fromHost: 'a.example.com', fromPort: 443, toHost: '127.0.0.1', toPort: 8443 });
    expect(parseConnectTo('::[::1]:8443')).toEqual({ fromHost: '', fromPort: undefined, toHost: '::1', toPort: 8443 });
    expect(parseConnectTo('a.example.com:443::')).toEqual({ fromHost: 'a.example.com', fromPort: 443, toHost: '', toPort: undefined });
    expect(() => parseConnectTo('a:b:c:d')).toThrow(/--connect-to/);
  });

  it('the code is found as a browser tokenizes the page, not by pattern', () => {
    expect(findTrackingCode('<!-- <script id="ZwSg9rf6GA" data-host="x"></script> -->')).toBeUndefined();
    expect(findTrackingCode('<textarea><script id="ZwSg9rf6GA" data-host="x"></script></textarea>')).toBeUndefined();
    expect(findTrackingCode('<SCRIPT ID=ZwSg9rf6GA DATA-HOST=https://a.example></SCRIPT>')).toEqual({ dataHost: 'https://a.example' });
    expect(findTrackingCode(`${'<div>'.repeat(100_000)}<script id="ZwSg9rf6GA" data-host="y"></script>`)).toEqual({ dataHost: 'y' });
    expect(findTrackingCode('<script>document.write(\'<script id="ZwSg9rf6GA" data-host="x"><\\/script>\')</script>')).toBeUndefined();
  });

  it('the host is matched as the tracker does: www. removed, ASCII', () => {
    expect(trackedHost('WWW.Example.com')).toBe('example.com');
    expect(trackedHost('bücher.example')).toBe('xn--bcher-kva.example');
  });
});
