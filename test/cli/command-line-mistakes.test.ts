/** Mistakes on the command line lead to the fix: what is unknown, what was meant, and help only where it helps. */
// The CLI runs in this process (runCliHere: main(argv, io), the entry the bundle runs); the bundle itself is run in test/cli/help-and-completion.
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliHere } from '../helpers/cli.js';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe('unknown flags and commands say what is unknown and what was meant', () => {
  it.each([
    [['plan', '--detailed-exit-code'], 'Error: unknown option --detailed-exit-code for sitesync plan: did you mean --detailed-exitcode?\nRun `sitesync plan --help` for usage.\n'],
    [['aply'], 'Error: unknown command "aply" for sitesync: did you mean "apply"?\nRun `sitesync --help` for usage.\n'],
    [['ci', 'commnt'], 'Error: unknown command "commnt" for sitesync ci: did you mean "comment"?\nRun `sitesync ci --help` for usage.\n'],
    [['plan', '--taget', 'shop.example.com'], 'Error: unknown option --taget for sitesync plan: did you mean --target?\nRun `sitesync plan --help` for usage.\n'],
    [['validate', 'extra'], 'Error: sitesync validate takes no argument "extra"\nRun `sitesync validate --help` for usage.\n'],
    // A mistyped flag before the command gets the suggestion it gets after it.
    [['--verbos', 'plan'], 'Error: unknown option --verbos for sitesync: did you mean --verbose?\nRun `sitesync --help` for usage.\n'],
    [['plan', '--verbos'], 'Error: unknown option --verbos for sitesync plan: did you mean --verbose?\nRun `sitesync plan --help` for usage.\n'],
    [['--versoin', 'plan'], 'Error: unknown option --versoin for sitesync: did you mean --version?\nRun `sitesync --help` for usage.\n'],
    [['--frob', '--verbos', 'plan'], 'Error: 2 unknown arguments\n  unknown option --frob for sitesync\n  unknown option --verbos for sitesync: did you mean --verbose?\nRun `sitesync --help` for usage.\n'],
    [['ci', '--verbos', 'drift'], 'Error: unknown option --verbos for sitesync ci: did you mean --verbose?\nRun `sitesync ci --help` for usage.\n'],
    [['--prune', 'plan'], 'Error: --prune is an option of sitesync plan: put it after the command (sitesync plan --prune)\nRun `sitesync --help` for usage.\n'],
    [['--token', 'sk-secret-value-1', 'plan'], 'Error: there is no --token option: the API key is never a command-line argument, where shell history, CI logs and the process list would show it: set SITESYNC_API_KEY, or put it in a file and pass --api-key-file FILE\nRun `sitesync plan --help` for usage.\n'],
    // British spelling of colour.
    [['plan', '--no-colour'], 'Error: unknown option --no-colour for sitesync plan: did you mean --no-color?\nRun `sitesync plan --help` for usage.\n'],
    [['--no-colour', 'validate'], 'Error: unknown option --no-colour for sitesync validate: did you mean --no-color?\nRun `sitesync validate --help` for usage.\n'],
    [['plan', '--colour'], 'Error: unknown option --colour for sitesync plan: did you mean --color?\nRun `sitesync plan --help` for usage.\n'],
  ])('sitesync %j', async (args, stderr) => {
    const r = await runCliHere(args);
    expect(r.stderr).toBe(stderr);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
  });

  it('--api-key is refused with why a key is never an argument, and the value is not repeated', async () => {
    for (const args of [['plan', '--api-key', 'sk-secret-value-123'], ['--api-key=sk-secret-value-123', 'plan']]) {
      const r = await runCliHere(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('there is no --api-key option: the API key is never a command-line argument');
      expect(r.stderr).toContain('set SITESYNC_API_KEY, or put it in a file and pass --api-key-file FILE');
      expect(r.stderr).not.toContain('sk-secret-value-123');
    }
  });

  it.each([
    [['validate', '-c', 'a.yaml', '-c', 'b.yaml'], 'Error: --config is given 2 times (a.yaml, b.yaml); give it once\nRun `sitesync validate --help` for usage.\n'],
    [['plan', '--out', 'a.json', '--out', 'b.json'], 'Error: --out is given 2 times (a.json, b.json); give it once\nRun `sitesync plan --help` for usage.\n'],
    [['plan', '--base-url', 'http://a', '--base-url', 'http://b'], 'Error: --base-url is given 2 times (http://a, http://b); give it once\nRun `sitesync plan --help` for usage.\n'],
    [['ci', 'summary', '--file', 'x', '--file', 'y'], 'Error: --file is given 2 times (x, y); give it once\nRun `sitesync ci summary --help` for usage.\n'],
    [['emulator', '--port', '0', '--port', '0', '--key', 'k'], 'Error: --port is given 2 times (0, 0); give it once\nRun `sitesync emulator --help` for usage.\n'],
    // A flag given twice says so, as a value given twice does.
    [['plan', '--prune', '--prune'], 'Error: --prune is given 2 times (--prune, --prune); give it once\nRun `sitesync plan --help` for usage.\n'],
    [['plan', '--prune', '--no-prune'], 'Error: --prune is given 2 times (--prune, --no-prune); give it once\nRun `sitesync plan --help` for usage.\n'],
    [['apply', '--auto-approve', '--auto-approve=false'], 'Error: --auto-approve is given 2 times (--auto-approve, --auto-approve=false); give it once\nRun `sitesync apply --help` for usage.\n'],
    // One rule for every flag, colour too: NO_COLOR in the environment, not a second flag, turns it off for good.
    [['validate', '--no-color', '--color'], 'Error: --color is given 2 times (--no-color, --color); give it once\nRun `sitesync validate --help` for usage.\n'],
    [['--verbose', 'validate', '--verbose'], 'Error: --verbose is given 2 times (--verbose, --verbose); give it once\nRun `sitesync validate --help` for usage.\n'],
  ])('a value or a flag given twice is a mistake that says so, not an internal error: sitesync %j', async (args, stderr) => {
    const r = await runCliHere(args);
    expect(r.stderr).toBe(stderr);
    expect(r.code).toBe(1);
  });

  it('a flag once, and words after -- that look like it, are fine', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: a.example.com\n');
    expect((await s.cli(['validate', '--verbose', '--no-color'])).code).toBe(0);
    const r = await s.cli(['fmt', '--check', '--', '--check']);
    expect(r.stderr).toContain('--check: no such file');
    expect(r.stderr).not.toContain('given 2 times');
  });

  it('several unknown flags are each named', async () => {
    const r = await runCliHere(['validate', '--frobnicate', '--verbos']);
    expect(r.stderr).toBe(
      'Error: 2 unknown arguments\n  unknown option --frobnicate for sitesync validate\n  unknown option --verbos for sitesync validate: did you mean --verbose?\nRun `sitesync validate --help` for usage.\n',
    );
  });

  it('messages are in English whatever the locale', async () => {
    const r = await runCliHere(['plan', '--detailed-exit-code'], { env: { LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8' } });
    expect(r.stderr).toContain('did you mean --detailed-exitcode?');
  });
});

describe('a --target that matches nothing is an error, not "No changes"', () => {
  it.each([
    ['nomatch.org', 'Error: --target "nomatch.org" matches no website in the file or the account\n'],
    ['shop*', 'Error: --target "shop*" matches no website in the file or the account\n'],
    [
      'https://shop.example.com',
      'Error: --target "https://shop.example.com" matches no website in the file or the account; "https://shop.example.com" is not a bare domain name (no scheme, port or path): write "shop.example.com"\n',
    ],
  ])('plan --detailed-exitcode --target %s exits 1 and names the pattern', async (target, message) => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'shop.example.com', privacy: 1, email: 0, exclude_bots: 1 }]);
    await s.write('version: 1\nwebsites:\n  - domain: shop.example.com\n');
    const r = await s.cli(['plan', '--detailed-exitcode', '--target', target]);
    expect(r.stdout).not.toContain('No changes');
    expect(r.stderr).toBe(message);
    expect(r.code).toBe(1);
    const right = await s.cli(['plan', '--detailed-exitcode', '--target', 'shop.example.com']);
    expect(right.code).toBe(2);
  });
});

describe('"Run sitesync --help" only after usage errors', () => {
  let dir: string;
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('an error that is not about the command line does not point at --help', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sitesync-cli-'));
    await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites: []\n');
    const noKey = await runCliHere(['plan', '--base-url', 'https://analytics.example.com'], { cwd: dir });
    expect(noKey.stderr).toBe('Error: no API key: set SITESYNC_API_KEY, or pass --api-key-file FILE (the key is never read from the config file)\n');
    const plainHttp = await runCliHere(['plan', '--base-url', 'http://analytics.example.com'], { cwd: dir, env: { SITESYNC_API_KEY: 'k-123456' } });
    expect(plainHttp.stderr).not.toContain('--help');
    expect(plainHttp.code).toBe(1);
    const missingFile = await runCliHere(['validate', '-c', 'nope.yaml'], { cwd: dir });
    expect(missingFile.stderr).not.toContain('--help');
  });
});

describe('an API key that cannot be one is refused at once', () => {
  it('--api-key-file /dev/zero says it is not an API key, quickly', async () => {
    const r = await runCliHere(['account', '--base-url', 'https://analytics.example.com', '--api-key-file', '/dev/zero']);
    expect(r.stderr).toBe('Error: --api-key-file /dev/zero is not an API key: the file holds more than 4 KiB\n');
    expect(r.code).toBe(1);
  });

  it('a key with a line break inside is refused before any request, and never shown', async () => {
    const s = await scenario();
    try {
      const r = await s.cli(['account'], { env: { SITESYNC_API_KEY: `${KEY}\r\nX-Injected: 1` } });
      expect(r.stderr).toBe('Error: SITESYNC_API_KEY is not an API key: it holds a line break (only the key, on one line, may be there)\n');
      expect(r.code).toBe(1);
      expect(s.emu.stats.log).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe('a host that does not resolve', () => {
  it('--base-url https://no-such-host.invalid fails at once, without retries, and says to check the base URL', async () => {
    const r = await runCliHere(['account', '--verbose', '--base-url', 'https://no-such-host.invalid'], { env: { SITESYNC_API_KEY: 'k-123456789' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /Error: (read the account|count websites): cannot find the host no-such-host\.invalid \(DNS (ENOTFOUND|EAI_AGAIN)\): check the base URL \(--base-url, SITESYNC_BASE_URL or api\.base_url in the file\)\n$/,
    );
    expect(r.stderr).not.toContain('(retry');
    expect(r.stderr).not.toContain('--help');
  });
});
