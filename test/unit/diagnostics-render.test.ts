/** validate --format github|json: GitHub's escaping, paths as the repository names them. */
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/messages/errors.js';
import { renderDiagnosticsJson, renderGithubAnnotations } from '../../src/render/diagnostics.js';

const problems: Diagnostic[] = [
  { file: '/repo/clients/a,b:c.yaml', line: 3, col: 7, message: '100% wrong:\nsecond line\r', severity: 'error' },
  { file: '/repo/sitesync.yaml', line: 0, col: 0, message: 'no such file', severity: 'warning' },
];

describe('problems for machines', () => {
  it('github: one workflow command each, with %, CR, LF, ":" and "," escaped as GitHub reads them', () => {
    expect(renderGithubAnnotations(problems, '/repo')).toBe(
      '::error file=clients/a%2Cb%3Ac.yaml,line=3,col=7::100%25 wrong:%0Asecond line%0D\n::warning file=sitesync.yaml::no such file\n',
    );
  });

  it('json: valid, errors and warnings, with paths relative to the working directory', () => {
    expect(JSON.parse(renderDiagnosticsJson(problems, '/repo'))).toEqual({
      valid: false,
      errors: [{ file: 'clients/a,b:c.yaml', line: 3, col: 7, message: '100% wrong:\nsecond line\r' }],
      warnings: [{ file: 'sitesync.yaml', line: 0, col: 0, message: 'no such file' }],
    });
  });
});
