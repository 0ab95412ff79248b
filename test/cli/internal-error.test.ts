/** An unexpected error is a bug report: it still never shows a secret or drives the terminal. */
import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { report } from '../../src/cli.js';
import { COMMAND_TABLE } from '../../src/cli/table.js';
import { ConfigError } from '../../src/messages/errors.js';
import { SecretValues } from '../../src/secrets/values.js';
import type { Context } from '../../src/io/context.js';

function context(verbose: boolean): { ctx: Context; stderr: () => string } {
  let text = '';
  const stream = { write: (t: string) => (text += t) };
  const secrets = new SecretValues();
  secrets.add('pw');
  const colors = pc.createColors(false);
  const ctx: Context = {
    stdout: stream,
    stderr: stream,
    stdin: process.stdin,
    env: {},
    cwd: '/',
    out: colors,
    err: colors,
    verbose,
    signal: new AbortController().signal,
    secrets,
  };
  return { ctx, stderr: () => text };
}

describe('an internal error', () => {
  it.each([false, true])('quoting what a library read shows neither a password nor a raw escape sequence (--verbose %s)', (verbose) => {
    const { ctx, stderr } = context(verbose);
    const code = report(new SyntaxError('Unexpected token \x1b[2J in "password=pw&x" is not valid JSON'), ctx);
    expect(code).toBe(1);
    expect(stderr()).toContain('Internal error: Unexpected token \\x1b[2J in "password=(redacted)&x" is not valid JSON');
    expect(stderr()).not.toContain('pw');
    expect(stderr()).not.toContain('\x1b');
    if (verbose) expect(stderr()).toContain('SyntaxError: Unexpected token \\x1b[2J in "password=(redacted)&x"');
  });
});

/** The command as the command line declares it (whether it talks to the service is declared with it). */
function declared(path: string[]) {
  return COMMAND_TABLE.find((c) => c.path.join(' ') === path.join(' '))!;
}

describe('a config error', () => {
  const problem = () => new ConfigError([{ file: 'sitesync.yaml', line: 3, col: 13, severity: 'error', message: '"a..b" is not a valid domain name' }]);

  it.each([['validate'], ['fmt'], ['show'], ['emulator'], ['ci', 'comment']])('of an offline command (%s) says nothing about the service', (...command) => {
    const { ctx, stderr } = context(false);
    expect(report(problem(), ctx, declared(command))).toBe(1);
    expect(stderr()).toBe('sitesync.yaml:3:13: "a..b" is not a valid domain name\n1 problem found.\n');
  });

  it.each([['plan'], ['apply'], ['export'], ['account'], ['import']])('of a command that talks to the service (%s) says nothing was changed on it', (...command) => {
    const { ctx, stderr } = context(false);
    expect(report(problem(), ctx, declared(command))).toBe(1);
    expect(stderr()).toBe('sitesync.yaml:3:13: "a..b" is not a valid domain name\n1 problem found; nothing was changed on the service.\n');
  });
});
