/** A change as the JSON plan holds it: `seen` (the fingerprint of the website as seen) only in saved plans. */
import type { Change } from '../model/types.js';

export function jsonChange(change: Change, keepSeen: boolean): Omit<Change, 'seen'> & { seen?: string } {
  if (keepSeen || change.action === 'create') return change;
  const { seen: _seen, ...shown } = change;
  return shown;
}
