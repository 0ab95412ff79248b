/** How outputs count things: one wording everywhere. */

/** "3 accounts", "1 account". */
export function accountsCount(n: number): string {
  return `${n} account${n === 1 ? '' : 's'}`;
}

/** "120 websites", "1 website". */
export function websitesCount(n: number): string {
  return `${n} website${n === 1 ? '' : 's'}`;
}

/** "one account", "all 3 accounts", "2 of 3 accounts": how many of a run's accounts something is true of. */
export function howMany(count: number, of: number): string {
  if (count === of) return count === 1 ? 'one account' : `all ${of} accounts`;
  return `${count} of ${accountsCount(of)}`;
}
