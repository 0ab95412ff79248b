/** A reader that closes early (`sitesync plan | head -1`): the output ends quietly, as git's does (141), and apply still finishes. */
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const sites = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `  - domain: ${prefix}${i}.example.com\n    privacy: private`).join('\n');

describe('a reader that closes early (`sitesync plan | head -1`) ends the output quietly, as git does (141)', () => {
  it('text and json plans larger than the pipe buffer: no trace, nothing on stderr, exit 141', async () => {
    s = await scenario();
    await s.write(`version: 1\nwebsites:\n${sites(2000)}\n`);
    for (const format of ['text', 'json']) {
      const r = await s.cli(['plan', '--format', format], { process: true, closeStdoutEarly: true });
      expect(r.stdout.length, format).toBeLessThan(1_000_000); // only the start was read: the output is ~1 MB
      expect(r.stderr, format).toBe('');
      expect(r.code, format).toBe(141);
    }
  });

  it('fmt --check keeps its own verdict (1: not formatted) and says it, without a trace', async () => {
    s = await scenario();
    // No blank line between websites: fmt adds 2,000, a diff of ~100 KB.
    await s.write(`version: 1\nwebsites:\n${sites(2000)}\n`, 'big.yaml');
    const r = await runCli(['fmt', '--check', 'big.yaml'], { cwd: s.dir, closeStdoutEarly: true });
    expect(r.stdout).toMatch(/^--- big\.yaml\n/);
    expect(r.stderr).toBe('big.yaml is not formatted; run: sitesync fmt big.yaml\n');
    expect(r.code).toBe(1);
  });

  it('apply whose output is closed still applies every change (an apply half done would help nobody), then exits 141', async () => {
    s = await scenario();
    await s.write(`version: 1\nwebsites:\n${sites(300)}\n`);
    const r = await s.cli(['apply', '--auto-approve'], { process: true, closeStdoutEarly: true });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(141);
    expect(s.emu.websites(KEY)).toHaveLength(300);
  });
});
