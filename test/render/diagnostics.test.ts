/** validate --format github|json: GitHub's escaping, paths as the repository names them. */
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/messages/errors.js';
import { renderDiagnosticsJson, renderGithubAnnotations } from '../../src/render/diagnostics.js';

const problems: Diagnostic[] = [
  { file: '/repo/clients/a,b:c.yaml', line: 3, col: 7, message: '100% wrong:\nsecond line\r', severity: 'error' },
  { file: '/repo/sitesync.yaml', line: 0, col: 0, message: 'no such file', severity: 'warning' },
];

describe('problems for machines', () => {
  it('github: one workflow command each, with %, ":" and "," escaped as GitHub reads them, and CR, LF shown as in every output', () => {
    expect(renderGithubAnnotations(problems, '/repo')).toBe(
      '::error file=clients/a%2Cb%3Ac.yaml,line=3,col=7::100%25 wrong:\\nsecond line\\r\n::warning file=sitesync.yaml::no such file\n',
    );
  });

  it('github: an invisible character in a message is shown escaped, as on a terminal', () => {
    const hidden: Diagnostic[] = [{ file: '/repo/sitesync.yaml', line: 3, col: 13, message: '"exa\u200dmple.com\u202e" is listed twice', severity: 'error' }];
    expect(renderGithubAnnotations(hidden, '/repo')).toBe('::error file=sitesync.yaml,line=3,col=13::"exa\\u200dmple.com\\u202e" is listed twice\n');
  });

  it('json: valid, errors and warnings, with paths relative to the working directory', () => {
    expect(JSON.parse(renderDiagnosticsJson(problems, '/repo'))).toEqual({
      valid: false,
      errors: [{ file: 'clients/a,b:c.yaml', line: 3, col: 7, message: '100% wrong:\nsecond line\r' }],
      warnings: [{ file: 'sitesync.yaml', line: 0, col: 0, message: 'no such file' }],
    });
  });
});
