/** "Nothing was written" is a property of an error, worded once (src/messages/errors.ts). */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotApprovedError, SafetyError, SitesyncError } from '../../src/messages/errors.js';
import { packageRoot } from '../../src/io/paths.js';

describe('an error that stopped before any write', () => {
  it('says so at the end of its message, and carries it as a property', () => {
    const error = new SafetyError('refusing to delete 4 of 10 websites', { nothingWritten: true });
    expect(error.message).toBe('refusing to delete 4 of 10 websites; nothing was written');
    expect(error.nothingWritten).toBe(true);
    const plain = new SitesyncError('the service answered 500');
    expect(plain.message).toBe('the service answered 500');
    expect(plain.nothingWritten).toBe(false);
  });

  it('keeps the words a message says around it', () => {
    expect(new SitesyncError('plan.json could not be checked in 1 of 2 accounts', { nothingWritten: { before: 'a saved plan is applied whole, so ' } }).message).toBe(
      'plan.json could not be checked in 1 of 2 accounts; a saved plan is applied whole, so nothing was written',
    );
    expect(new SitesyncError('x.yaml: another sitesync (pid 7) is editing this file', { nothingWritten: { before: 'waited 30 s, ', after: '. If no sitesync is running, remove .x.yaml.lock' } }).message).toBe(
      'x.yaml: another sitesync (pid 7) is editing this file; waited 30 s, nothing was written. If no sitesync is running, remove .x.yaml.lock',
    );
    expect(new NotApprovedError('apply was cancelled', { nothingWritten: { after: ' (answered n)' } }).message).toBe('apply was cancelled; nothing was written (answered n)');
  });

  it('is worded nowhere else in src/', () => {
    const src = join(packageRoot(), 'src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const wording = files.filter((f) => f !== join('messages', 'errors.ts') && readFileSync(join(src, f), 'utf8').includes('nothing was written'));
    expect(wording.map((f) => relative(packageRoot(), join(src, f)))).toEqual([]);
  });
});
