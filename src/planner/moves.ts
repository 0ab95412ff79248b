/**
 * Moves between accounts of one installation. The product stores a domain once per installation,
 * whichever account holds it: a domain one account deletes and another of the same installation
 * creates is one website moving, and its create can only go through once the delete has. Pure:
 * the accounts' plans in, the same plans with both changes marked out.
 */
import type { Change, Move, Plan } from '../model/types.js';

/** One account's plan, with the installation it is on (see run/connect.ts). */
export interface InstalledPlan {
  name: string;
  installation: string;
  plan?: Plan;
}

/** The plans with each move's delete and create marked (`move`); a plan without a move is returned as it was. */
export function markMoves(accounts: readonly InstalledPlan[]): (Plan | undefined)[] {
  const deletedBy = new Map<string, string>();
  for (const a of accounts) {
    for (const c of a.plan?.changes ?? []) if (c.action === 'delete' && !c.gone) deletedBy.set(key(a.installation, c.domain), a.name);
  }
  const moves = new Map<string, Move>();
  for (const a of accounts) {
    for (const c of a.plan?.changes ?? []) {
      if (c.action !== 'create') continue;
      const from = deletedBy.get(key(a.installation, c.domain));
      if (from !== undefined && from !== a.name) moves.set(key(a.installation, c.domain), { from, to: a.name });
    }
  }
  if (moves.size === 0) return accounts.map((a) => a.plan);
  return accounts.map((a) => {
    if (!a.plan) return undefined;
    const marked = (c: Change): Change => {
      if (c.action === 'update') return c;
      const move = moves.get(key(a.installation, c.domain));
      if (!move || (c.action === 'delete' ? move.from : move.to) !== a.name) return c;
      return c.action === 'delete' ? { ...c, move } : { ...c, move };
    };
    return { ...a.plan, changes: a.plan.changes.map(marked) };
  });
}

/** What a move says in every output (each output escapes it where it writes it). */
export function moveNote(move: Move): string {
  return `moves from ${move.from} to ${move.to}; its history stays with ${move.from} and is destroyed there`;
}

/**
 * The changes that go before the others: the deletes that make room. At the plan's website limit
 * (the creates would pass it before the deletes are sent) every delete of the account; and
 * everywhere, the delete of a move, which frees the domain for the other account's create.
 */
export function goesFirst(plan: Pick<Plan, 'limit' | 'summary'>, change: Change): boolean {
  if (change.action !== 'delete') return false;
  return change.move !== undefined || atLimit(plan);
}

/** The creates would pass the account's website limit if they went before the deletes. */
export function atLimit(plan: Pick<Plan, 'limit' | 'summary'>): boolean {
  const { limit, live } = plan.limit;
  return limit !== null && plan.summary.delete > 0 && live + plan.summary.create > limit;
}

function key(installation: string, domain: string): string {
  return `${installation}\u0000${domain}`;
}
