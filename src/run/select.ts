/** Which accounts of a workspace a run works on (`--account NAME`…), and their names. */
import { suggest } from '../messages/suggest.js';
import { UsageError } from '../messages/errors.js';
import type { Config, Workspace } from '../model/types.js';

/** The account's name as the file has it; '' for the one account of a single-account file. */
export function accountName(config: Config): string {
  return config.account?.name ?? '';
}

/** The configs `--account` names (all when it names none), in the file's order. */
export function selectAccounts(workspace: Workspace, names: string[] | undefined, shown: string): Config[] {
  if (!names?.length) return workspace.configs;
  if (!workspace.multi) {
    throw new UsageError(`--account: ${shown} holds one account (it has no accounts:); leave --account out`);
  }
  const known = workspace.configs.map(accountName);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length) {
    const lines = unknown.map((n) => {
      const near = suggest(n, known);
      return `--account ${n}: ${shown} has no such account${near ? ` (did you mean ${near}?)` : ''}`;
    });
    const error = new UsageError(lines.length === 1 ? lines[0]! : `${lines.length} --account names match no account of ${shown}`);
    if (lines.length > 1) error.details = lines;
    error.details.push(`Its accounts: ${known.join(', ')}.`);
    throw error;
  }
  return workspace.configs.filter((c) => names.includes(accountName(c)));
}
