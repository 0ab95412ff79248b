import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, runCli, runCliHere } from '../helpers/cli.js';

const fixtures = join(root, 'test/fixtures/config');

// The first case runs the built CLI, a process of its own; the others run it in this process
// (runCliHere: the same entry, environment, folder and outputs).
describe('sitesync validate', () => {
  it('a good file: exit 0, a one-line verdict, warnings on stderr (the built CLI)', async () => {
    const r = await runCli(['validate', '-c', join(fixtures, 'valid/www-prefix.yaml')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/valid-?.*www-prefix\.yaml is valid: 1 website, 1 warning\.\n$/);
    expect(r.stderr).toContain('www-prefix.yaml:3:13: warning: "www.example.org"');
  });

  it('a bad file: exit 1, every problem as FILE:LINE:COL: message, nothing on stdout', async () => {
    const file = join(fixtures, 'invalid/duplicate-domain.yaml');
    const r = await runCliHere(['validate', '-c', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${file}:5:13: "EXAMPLE.com" (as "example.com") is listed twice: at line 3 and at line 5`);
    // validate never talks to the service, so its verdict does not mention one.
    expect(r.stderr.endsWith('\n1 problem found.\n')).toBe(true);
    expect(r.stderr.replaceAll(file, 'FILE')).not.toContain('service');
  });

  it('reads sitesync.yaml in the current folder by default, without network or key', async () => {
    const r = await runCliHere(['validate'], { cwd: join(fixtures, 'valid'), env: { SITESYNC_BASE_URL: 'http://192.0.2.1:9' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sitesync.yaml: no such file');
  });

  it('without secrets (a fork\'s pull request) an unset variable is a warning that names it; --strict-env and plan make it an error', async () => {
    const file = join(fixtures, 'valid/full.yaml');
    const missing = await runCliHere(['validate', '-c', file]);
    expect(missing.code).toBe(0);
    expect(missing.stderr).toContain('warning: websites[0].password: environment variable EXAMPLE_STATS_PASSWORD is not set; plan and apply need it');
    expect(missing.stdout).toContain('is valid: 4 websites, 1 warning.');
    const strict = await runCliHere(['validate', '-c', file, '--strict-env']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('environment variable EXAMPLE_STATS_PASSWORD is not set');
    const plan = await runCliHere(['plan', '-c', file], { env: { SITESYNC_BASE_URL: 'http://127.0.0.1:9', SITESYNC_API_KEY: 'k-0123456789' } });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('websites[0].password: environment variable EXAMPLE_STATS_PASSWORD is not set');
    const set = await runCliHere(['validate', '-c', file], { env: { EXAMPLE_STATS_PASSWORD: 'pw' } });
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('is valid: 4 websites');
  });

  it('a ${NAME} outside a password is one error at its line, not also a wrong type; an unset password is a warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sitesync-validate-'));
    try {
      await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\napi: { base_url: "${STATS_URL}" }\nwebsites:\n  - domain: a.example\n    privacy: ${A_PRIVACY}\n    password: ${A_PW}\n');
      const r = await runCliHere(['validate'], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("sitesync.yaml:2:18: api.base_url: ${NAME} is read from the environment only in a website's password");
      expect(r.stderr).toContain("sitesync.yaml:5:14: websites[0].privacy: ${NAME} is read from the environment only in a website's password");
      expect(r.stderr).not.toContain('must be');
      expect(r.stderr).toContain('websites[0].password: environment variable A_PW is not set; plan and apply need it');
      expect(r.stderr).toContain('2 problems found');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('--format github prints one annotation per problem on its file and line; --format json prints them as data', async () => {
    const file = join(fixtures, 'invalid/bad-privacy.yaml');
    const github = await runCliHere(['validate', '-c', file, '--format', 'github'], { cwd: fixtures });
    expect(github.code).toBe(1);
    const annotations = github.stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations.length).toBeGreaterThan(0);
    for (const a of annotations) expect(a).toMatch(/^::(error|warning) file=invalid\/bad-privacy\.yaml,line=\d+,col=\d+::\S/);
    expect(github.stderr).toBe('');
    const json = await runCliHere(['validate', '-c', file, '--format', 'json'], { cwd: fixtures });
    expect(json.code).toBe(1);
    const data = JSON.parse(json.stdout);
    expect(data.valid).toBe(false);
    expect(data.errors[0]).toMatchObject({ file: 'invalid/bad-privacy.yaml', line: expect.any(Number), col: expect.any(Number), message: expect.any(String) });
    const ok = await runCliHere(['validate', '-c', join(fixtures, 'valid/full.yaml'), '--format', 'json'], { cwd: fixtures });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, errors: [], warnings: [{ file: 'valid/full.yaml', message: expect.stringContaining('EXAMPLE_STATS_PASSWORD') }] });
  });

  it('colour only on a terminal: none when piped, even for errors', async () => {
    const r = await runCliHere(['validate', '-c', join(fixtures, 'invalid/bad-ip.yaml')]);
    expect(r.stderr).not.toContain('\u001b[');
    const forced = await runCliHere(['validate', '-c', join(fixtures, 'invalid/bad-ip.yaml')], { env: { FORCE_COLOR: '1' } });
    expect(forced.stderr).toContain('\u001b[31m');
    const off = await runCliHere(['validate', '--no-color', '-c', join(fixtures, 'invalid/bad-ip.yaml')], { env: { FORCE_COLOR: '1' } });
    expect(off.stderr).not.toContain('\u001b[');
  });
});

describe('the CLI shell', () => {
  it('--help lists every command with examples; --version prints the version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['validate', 'plan', 'apply [planfile]', 'export', 'account', 'emulator']) expect(help.stdout).toContain(`sitesync ${c}`);
    expect(help.stdout).toContain('Exit codes:');
    const planHelp = await runCli(['plan', '--help']);
    expect(planHelp.stdout).toContain('Examples:');
    expect(planHelp.stdout).toContain('--detailed-exitcode');
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('unknown flags and commands are usage errors with exit 1', async () => {
    const flag = await runCli(['validate', '--frobnicate']);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain('unknown option --frobnicate for sitesync validate');
    const none = await runCli([]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('Say which command to run');
  });

  it('the API key is not accepted as an argument', async () => {
    const r = await runCli(['plan', '--api-key', 'sk-secret-value']);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('sk-secret-value');
  });
});
