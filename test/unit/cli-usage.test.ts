import { describe, expect, it } from 'vitest';
import { explainUnknown } from '../../src/cli-usage.js';

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
