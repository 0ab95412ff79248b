/**
 * The data file: read and checked once at start, then rewritten whole after changes.
 *
 * Every write goes to a temporary file in the same folder, is fsynced, then renamed over the
 * data file, so a kill at any moment leaves either the old or the new state. Writes are group
 * commits: a change waits for the first write that starts after it, and all changes made while
 * one write runs share the next one, so 200 concurrent clients cost one write at a time.
 */
import { readFile } from 'node:fs/promises';
import { SitesyncError } from '../messages/errors.js';
import { writeAtomic } from '../io/files.js';
import type { AccountRecord, StateData, TrafficData, WebsiteRow } from './store.js';
import { isDay } from './traffic.js';

export const FORMAT = 'sitesync-emulator';
export const VERSION = 1;

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A waiter may be gone (its client hung up); the rejection must not crash the process.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export class Persister {
  private inFlight: Promise<void> | null = null;
  private next: Deferred | null = null;

  constructor(
    readonly file: string,
    private readonly snapshot: () => StateData,
  ) {}

  /** Resolves once a write that contains every change made so far has completed. */
  commit(): Promise<void> {
    if (!this.inFlight) {
      this.inFlight = this.write();
      return this.inFlight;
    }
    this.next ??= deferred();
    return this.next.promise;
  }

  /** Waits for every requested write. */
  async flush(): Promise<void> {
    while (this.inFlight) await this.inFlight.catch(() => undefined);
  }

  private write(): Promise<void> {
    // The snapshot is taken now, synchronously, so it holds every change made before this call.
    const text = serialize(this.snapshot());
    // The data file holds website passwords in clear: only its owner may read it.
    const done = writeAtomic(this.file, text, 0o600);
    done
      .catch(() => undefined)
      .then(() => {
        const waiting = this.next;
        this.next = null;
        this.inFlight = waiting ? this.write() : null;
        if (waiting) this.inFlight!.then(waiting.resolve, waiting.reject);
      });
    return done;
  }
}

/**
 * The file's text. Traffic goes last, one line per website with each day as
 * `[pageviews, visitors]`: a year of days spread over hundreds of lines each would make the
 * file many times bigger, and it is rewritten whole on every change.
 */
export function serialize(data: StateData): string {
  const { traffic = [], ...rest } = data;
  const head = JSON.stringify({ format: FORMAT, version: VERSION, ...rest }, null, 1);
  const lines = traffic.map((t) => {
    const days = Object.fromEntries(Object.entries(t.days).map(([day, c]) => [day, [c.pageviews, c.visitors]]));
    return `  ${JSON.stringify({ website: t.website, days })}`;
  });
  // `head` ends with "\n}": the traffic goes in before the closing brace.
  const list = lines.length === 0 ? '[]' : `[\n${lines.join(',\n')}\n ]`;
  return `${head.slice(0, -2)},\n "traffic": ${list}\n}\n`;
}

function dataFileError(file: string, problem: string, hint?: string): SitesyncError {
  const error = new SitesyncError(`cannot use the emulator data file ${file}: ${problem}`);
  error.details.push(hint ?? 'It was left untouched: fix it, or give another --data file (a missing one starts empty).');
  return error;
}

/** The state in `file`; undefined when there is no such file yet. */
export async function loadData(file: string): Promise<StateData | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    const why =
      code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a folder'
          : (error as Error).message;
    throw dataFileError(file, `it cannot be read (${why})`);
  }
  if (text.trim() === '') throw dataFileError(file, 'it is empty, not an emulator data file');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw dataFileError(file, `it is not valid JSON (${(error as Error).message})`);
  }
  return parseData(json, file);
}

/** Checks every field, so that a damaged or foreign file is refused instead of half-used. */
export function parseData(json: unknown, file: string): StateData {
  const fail = (problem: string) => dataFileError(file, problem);
  if (!isObject(json)) throw fail('it is not a JSON object');
  if (json.format !== FORMAT) {
    throw fail(`it is not an emulator data file (its "format" is ${JSON.stringify(json.format) ?? 'missing'}, expected "${FORMAT}")`);
  }
  if (json.version !== VERSION) {
    throw fail(`it has version ${JSON.stringify(json.version)}, this sitesync reads version ${VERSION}`);
  }
  if (!isCount(json.nextId) || json.nextId < 1) throw fail('"nextId" is not a positive integer');
  if (!Array.isArray(json.accounts)) throw fail('"accounts" is not a list');
  if (!Array.isArray(json.websites)) throw fail('"websites" is not a list');

  const accounts: AccountRecord[] = json.accounts.map((a, i) => {
    const at = `accounts[${i}]`;
    if (!isObject(a)) throw fail(`${at} is not an object`);
    if (!isCount(a.id) || a.id < 1) throw fail(`${at}.id is not a positive integer`);
    if (typeof a.keyHash !== 'string' || !/^[0-9a-f]{64}$/.test(a.keyHash)) throw fail(`${at}.keyHash is not a sha256 hex digest`);
    if (typeof a.name !== 'string') throw fail(`${at}.name is not a string`);
    if (typeof a.email !== 'string') throw fail(`${at}.email is not a string`);
    if (a.websiteLimit !== null && !(Number.isInteger(a.websiteLimit) && (a.websiteLimit as number) >= -1)) {
      throw fail(`${at}.websiteLimit is not null, -1 or a count`);
    }
    if (typeof a.apiAccess !== 'boolean') throw fail(`${at}.apiAccess is not true or false`);
    if (typeof a.created_at !== 'string') throw fail(`${at}.created_at is not a string`);
    return {
      id: a.id,
      keyHash: a.keyHash,
      name: a.name,
      email: a.email,
      websiteLimit: a.websiteLimit as number | null,
      apiAccess: a.apiAccess,
      created_at: a.created_at,
    };
  });
  const accountIds = new Set<number>();
  const hashes = new Set<string>();
  for (const [i, a] of accounts.entries()) {
    if (accountIds.has(a.id)) throw fail(`accounts[${i}].id ${a.id} appears twice`);
    if (hashes.has(a.keyHash)) throw fail(`accounts[${i}].keyHash appears twice`);
    accountIds.add(a.id);
    hashes.add(a.keyHash);
  }

  const ids = new Set<number>();
  const websites: WebsiteRow[] = json.websites.map((w, i) => {
    const at = `websites[${i}]`;
    if (!isObject(w)) throw fail(`${at} is not an object`);
    if (!isCount(w.id) || w.id < 1) throw fail(`${at}.id is not a positive integer`);
    if (ids.has(w.id)) throw fail(`${at}.id ${w.id} appears twice`);
    ids.add(w.id);
    if (w.id >= (json.nextId as number)) throw fail(`${at}.id ${w.id} is not below "nextId" ${json.nextId}`);
    if (!isCount(w.account) || !accountIds.has(w.account)) throw fail(`${at}.account does not name an account`);
    if (typeof w.domain !== 'string' || w.domain === '') throw fail(`${at}.domain is not a domain`);
    for (const field of ['privacy', 'email', 'exclude_bots'] as const) {
      if (w[field] !== null && !Number.isInteger(w[field])) throw fail(`${at}.${field} is not an integer or null`);
    }
    for (const field of ['exclude_params', 'exclude_ips', 'password', 'favorited_at'] as const) {
      if (w[field] !== null && typeof w[field] !== 'string') throw fail(`${at}.${field} is not a string or null`);
    }
    if (typeof w.favorite !== 'boolean') throw fail(`${at}.favorite is not true or false`);
    for (const field of ['created_at', 'updated_at'] as const) {
      if (typeof w[field] !== 'string') throw fail(`${at}.${field} is not a string`);
    }
    return {
      id: w.id,
      domain: w.domain,
      privacy: w.privacy as number | null,
      email: w.email as number | null,
      exclude_bots: w.exclude_bots as number | null,
      exclude_params: w.exclude_params as string | null,
      exclude_ips: w.exclude_ips as string | null,
      favorite: w.favorite,
      favorited_at: w.favorited_at as string | null,
      password: w.password as string | null,
      created_at: w.created_at as string,
      updated_at: w.updated_at as string,
      account: w.account,
    };
  });
  return { nextId: json.nextId, accounts, websites, traffic: parseTraffic(json.traffic, ids, fail) };
}

/** The `traffic` list; a file written before traffic existed has none, which is no traffic. */
function parseTraffic(value: unknown, websiteIds: Set<number>, fail: (problem: string) => SitesyncError): TrafficData[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw fail('"traffic" is not a list');
  const seen = new Set<number>();
  return value.map((t, i) => {
    const at = `traffic[${i}]`;
    if (!isObject(t)) throw fail(`${at} is not an object`);
    if (!isCount(t.website) || !websiteIds.has(t.website)) throw fail(`${at}.website does not name a website`);
    if (seen.has(t.website)) throw fail(`${at}.website ${t.website} appears twice`);
    seen.add(t.website);
    if (!isObject(t.days)) throw fail(`${at}.days is not an object`);
    const days: TrafficData['days'] = {};
    for (const [day, counts] of Object.entries(t.days)) {
      if (!isDay(day)) throw fail(`${at}.days has "${day}", which is not a day written YYYY-MM-DD`);
      if (!Array.isArray(counts) || counts.length !== 2 || !counts.every(isCount)) {
        throw fail(`${at}.days["${day}"] is not [pageviews, visitors]`);
      }
      days[day] = { pageviews: counts[0] as number, visitors: counts[1] as number };
    }
    return { website: t.website, days };
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
