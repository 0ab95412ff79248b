import { describe, expect, it } from 'vitest';
import { emptyValue, explainFailure, explainUnknown, explainValues } from '../../src/cli/usage.js';

const plan = { command: ['plan'], commands: [], flags: ['help', 'version', 'config', 'c', 'detailed-exitcode', 'target', 'format'] };

describe('explaining unknown words on the command line', () => {
  it('names a dashed flag once, not also in yargs camelCase', () => {
    expect(explainUnknown('Unknown arguments: detailed-exit-code, detailedExitCode', { ...plan, argv: ['plan', '--detailed-exit-code'] })).toEqual([
      'unknown option --detailed-exit-code for sitesync plan: did you mean --detailed-exitcode?',
    ]);
  });

  it('a one-letter flag inside a bundle is a flag, not a word', () => {
    expect(explainUnknown('Unknown argument: x', { ...plan, argv: ['plan', '-cx', 'a.yaml'] })).toEqual(['unknown option -x for sitesync plan']);
  });

  it('a word where a command goes is an unknown command, with the list when nothing is close', () => {
    const top = { argv: ['frobnicate'], command: [], commands: ['plan', 'apply'], flags: ['help'] };
    expect(explainUnknown('Unknown argument: frobnicate', top)).toEqual(['unknown command "frobnicate" for sitesync; the commands are: plan, apply']);
  });

  it('any flag meant to carry a key says why there is none, and never repeats its value', () => {
    const lines = explainUnknown('Unknown arguments: token, api-key, apiKey', { ...plan, argv: ['plan', '--token=sk-1', '--api-key', 'sk-2'] })!;
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/^there is no --(token|api-key) option: the API key is never a command-line argument/);
    expect(lines.join('\n')).not.toMatch(/sk-[12]/);
  });

  it('other yargs messages are left as they are', () => {
    expect(explainUnknown('Missing required argument: file', { ...plan, argv: [] })).toBeUndefined();
  });
});

const OPTIONS = {
  config: { type: 'string', alias: 'c' },
  format: { choices: ['text', 'markdown', 'json'] },
  parallelism: { type: 'number' },
  'dry-run': { type: 'boolean' },
  file: { type: 'string' },
} as const;

describe('explaining values on the command line', () => {
  it('a flag without its value is named by its long name, with its short form and what it takes', () => {
    expect(explainValues('Not enough arguments following: c', OPTIONS)).toEqual(['--config (-c) needs a value']);
    expect(explainValues('Not enough arguments following: format', OPTIONS)).toEqual(['--format needs a value: text, markdown or json']);
    expect(explainValues('Not enough arguments following: parallelism', OPTIONS)).toEqual(['--parallelism needs a value: a number']);
  });

  it("yargs' two-line message about choices is one line per option, and an empty value is a missing one", () => {
    const message = 'Invalid values:\n  Argument: format, Given: "yaml", Choices: "text", "markdown", "json"';
    expect(explainValues(message, OPTIONS)).toEqual(['--format must be text, markdown or json, not "yaml"']);
    expect(explainValues('Invalid values:\n  Argument: format, Given: "", Choices: "text"', OPTIONS)).toEqual(['--format needs a value: text, markdown or json']);
    expect(explainFailure(message, { argv: [], command: ['plan'], commands: [], flags: [], options: OPTIONS })).toEqual({
      message: '--format must be text, markdown or json, not "yaml"',
    });
  });

  it('a missing required option is named as a flag', () => {
    expect(explainValues('Missing required argument: file', OPTIONS)).toEqual(['--file is required']);
  });

  it('any other yargs message keeps its words, never a literal line break', () => {
    expect(explainFailure('Something else:\n  in two lines', { ...plan, argv: [] })).toEqual({ message: 'Something else:', details: ['in two lines'] });
  });

  it('an empty value typed as --name=, --name "" or -c= is found, but not after --, and not for a flag', () => {
    expect(emptyValue(['apply', '--parallelism='], OPTIONS)).toBe('parallelism');
    expect(emptyValue(['plan', '--config', ''], OPTIONS)).toBe('config');
    expect(emptyValue(['plan', '-c='], OPTIONS)).toBe('config');
    expect(emptyValue(['plan', '--config', 'a.yaml', ''], OPTIONS)).toBeUndefined();
    expect(emptyValue(['fmt', '--', '--config='], OPTIONS)).toBeUndefined();
    expect(emptyValue(['import', '--dry-run', ''], OPTIONS)).toBeUndefined();
  });
});
