/** What `sitesync init` adds to a file, through yaml's Document (comments and values stay), laid out as `fmt` does. */
import { isMap, isScalar, isSeq, parseDocument, type Pair, type Scalar, type YAMLSeq } from 'yaml';
import { formatConfigText } from './layout.js';

export interface Adoption {
  account: string;
  include: string;
  passwordEnv: string;
  /** Live websites no entry can name, left alone: `name` as the file writes it (`${` as `$${`), export's note with it. */
  leftAlone: { list: 'ignore' | 'protect'; name: string; note: string }[];
}

/** The folder of an account's websites, relative to the config file: `clients/NAME`. */
export function accountFolder(name: string): string {
  // A name is letters, digits, ".", "-", "_": only "." and ".." could leave clients/.
  return `clients/${/^\.+$/.test(name) ? name.replaceAll('.', '_') : name}`;
}

/**
 * The start of an account's password variables (`acme` → `ACME`; `SITE` in a single-account file):
 * its `password_env` `PREFIX_*` matches every name init proposes: a first pull request setting one passes the trusted check.
 */
export function passwordPrefix(account: string | undefined): string {
  if (account === undefined) return 'SITE';
  const upper = account.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
  return /^[0-9]/.test(upper) ? `_${upper}` : upper;
}

/** The variable init proposes for a website's password: `ACME_MEMBERS_ACME_EXAMPLE_PASSWORD`. */
export function passwordVariable(prefix: string, domain: string): string {
  const words = domain.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return `${prefix}_${words}_PASSWORD`;
}

/** The accounts of an `accounts:` file that hold neither `websites:` nor `include:`: those init fills. */
export function accountsToFill(text: string): string[] {
  const accounts = parseDocument(text).get('accounts', true);
  const empty = (pair: Pair) => isScalar(pair.key) && isMap(pair.value) && !pair.value.has('websites') && !pair.value.has('include');
  return isMap(accounts) ? accounts.items.filter(empty).map((pair) => String((pair.key as Scalar).value)) : [];
}

/** The text with `websites: []` in each account init fills: how the loader reads it before the included files exist. */
export function withEmptyWebsites(text: string, accounts: string[]): string {
  const doc = parseDocument(text);
  for (const name of accounts) doc.setIn(['accounts', name, 'websites'], doc.createNode([]));
  return doc.toString();
}

/** The file with each account's include, left-alone names and password_env added; the rest as it was. */
export function adoptAccounts(text: string, file: string, adoptions: Adoption[]): string {
  const doc = parseDocument(text);
  for (const { account, include, passwordEnv, leftAlone } of adoptions) {
    const body = doc.getIn(['accounts', account], true);
    if (!isMap(body)) continue;
    body.set('include', doc.createNode([include]));
    if (!body.has('password_env')) body.set('password_env', doc.createNode([passwordEnv]));
    for (const list of ['protect', 'ignore'] as const) {
      const mine = leftAlone.filter((n) => n.list === list);
      if (!mine.length) continue;
      if (!isSeq(body.get(list, true))) body.set(list, doc.createNode([]));
      const seq = body.get(list) as YAMLSeq;
      const written = seq.items.map((i) => (isScalar(i) ? String(i.value) : ''));
      for (const { name, note } of mine.filter((n) => !written.includes(n.name))) {
        seq.items.push(Object.assign(doc.createNode(name), { commentBefore: note }));
      }
    }
  }
  return formatConfigText(doc.toString({ lineWidth: 0 }), { file }).text;
}

/** A single-account file (export's) with the password_env its placeholders match. */
export function withPasswordEnv(text: string, file: string, passwordEnv: string): string {
  const doc = parseDocument(text);
  if (!doc.has('password_env')) doc.set('password_env', doc.createNode([passwordEnv]));
  return formatConfigText(doc.toString({ lineWidth: 0 }), { file }).text;
}
