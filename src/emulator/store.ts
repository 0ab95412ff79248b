/**
 * The emulator's state: accounts (known by the hash of their key), websites, with one id
 * sequence for all accounts like a database table, and each website's traffic by day. Plain
 * synchronous code: every change is made in one turn of the event loop, so checks and writes
 * never interleave.
 */
import { createHash } from 'node:crypto';
import type { DayTraffic, Profile, StoredWebsite } from './types.js';

export interface AccountRecord {
  id: number;
  /** sha256 of the key, hex: the key itself is never stored. */
  keyHash: string;
  name: string;
  email: string;
  /** null: the emulator-wide default applies. */
  websiteLimit: number | null;
  apiAccess: boolean;
  created_at: string;
}

export interface WebsiteRow extends StoredWebsite {
  /** The owner's account id. */
  account: number;
}

/** One website's traffic, as saved. */
export interface TrafficData {
  website: number;
  /** By day, `YYYY-MM-DD`. */
  days: Record<string, DayTraffic>;
}

/** The persisted form, also what `State.from` reads back. */
export interface StateData {
  nextId: number;
  accounts: AccountRecord[];
  websites: WebsiteRow[];
  /** Websites without traffic have no entry; files written before traffic existed have none. */
  traffic?: TrafficData[];
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Laravel's JSON timestamp: microseconds and a Z. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * What the service does to a domain before it validates and saves it. `deployed`, as the
 * product's own code does: `http://` and `https://` go wherever they appear, and when the rest
 * starts with `www.`, every `www.` in it goes (`www.a.www.example.net` → `a.example.net`).
 * `full`: a leading scheme and one leading `www.`.
 */
export function normalizeDomain(raw: string, profile: Profile = 'full'): string {
  let d = raw.toLowerCase();
  if (profile === 'deployed') {
    d = d.replaceAll('http://', '').replaceAll('https://', '');
    if (d.startsWith('www.')) d = d.replaceAll('www.', '');
    return d;
  }
  d = d.replace(/^https?:\/\//, '');
  if (d.startsWith('www.')) d = d.slice(4);
  return d;
}

export type NewWebsite = Omit<StoredWebsite, 'id' | 'created_at' | 'updated_at' | 'favorited_at'> & {
  favorited_at?: string | null;
};

export type WebsiteChanges = Partial<
  Pick<StoredWebsite, 'privacy' | 'email' | 'exclude_bots' | 'exclude_params' | 'exclude_ips' | 'password' | 'favorite'>
>;

export class State {
  private nextId = 1;
  private readonly accounts = new Map<number, AccountRecord>();
  private readonly byHash = new Map<string, AccountRecord>();
  /** Per account, its websites by id; ids only grow, so insertion order is id order. */
  private readonly byAccount = new Map<number, Map<number, WebsiteRow>>();
  /** How many websites hold each domain (more than one only with the duplicate fault). */
  private readonly domains = new Map<string, number>();
  /** Per website id, its traffic by day (only websites that have some). */
  private readonly traffic = new Map<number, Map<string, DayTraffic>>();
  private total = 0;

  static from(data: StateData): State {
    const state = new State();
    for (const a of data.accounts) state.addAccount({ ...a });
    const rows = [...data.websites].sort((a, b) => a.id - b.id);
    for (const row of rows) state.put({ ...row });
    state.nextId = Math.max(data.nextId, ...rows.map((r) => r.id + 1), 1);
    for (const t of data.traffic ?? []) state.addTraffic(t.website, Object.entries(t.days));
    return state;
  }

  toData(): StateData {
    // The traffic map as it is, so that traffic a delete failed to drop would show (and be refused on load).
    const traffic: TrafficData[] = [...this.traffic]
      .sort(([a], [b]) => a - b)
      .map(([website, days]) => ({ website, days: Object.fromEntries([...days].map(([d, t]) => [d, { ...t }])) }));
    return { nextId: this.nextId, accounts: [...this.accounts.values()], websites: this.allWebsites(), traffic };
  }

  get accountCount(): number {
    return this.accounts.size;
  }

  get websiteCount(): number {
    return this.total;
  }

  accountByKey(key: string): AccountRecord | undefined {
    return this.byHash.get(hashKey(key));
  }

  /** The account of this key, created when new. */
  attachKey(key: string): { account: AccountRecord; created: boolean } {
    const existing = this.accountByKey(key);
    if (existing) return { account: existing, created: false };
    const id = Math.max(0, ...this.accounts.keys()) + 1;
    const account: AccountRecord = {
      id,
      keyHash: hashKey(key),
      name: `Emulator account ${id}`,
      email: `account${id}@emulator.local`,
      websiteLimit: null,
      apiAccess: true,
      created_at: timestamp(),
    };
    this.addAccount(account);
    return { account, created: true };
  }

  /** Every account's websites, id ascending. */
  allWebsites(): WebsiteRow[] {
    const websites: WebsiteRow[] = [];
    for (const rows of this.byAccount.values()) websites.push(...rows.values());
    return websites.sort((a, b) => a.id - b.id);
  }

  websitesOf(accountId: number): WebsiteRow[] {
    return [...(this.byAccount.get(accountId)?.values() ?? [])];
  }

  countOf(accountId: number): number {
    return this.byAccount.get(accountId)?.size ?? 0;
  }

  find(accountId: number, id: number): WebsiteRow | undefined {
    return this.byAccount.get(accountId)?.get(id);
  }

  domainTaken(domain: string): boolean {
    return (this.domains.get(domain) ?? 0) > 0;
  }

  insert(accountId: number, fields: NewWebsite): WebsiteRow {
    const now = timestamp();
    const row: WebsiteRow = {
      id: this.nextId++,
      domain: fields.domain,
      privacy: fields.privacy,
      email: fields.email,
      exclude_bots: fields.exclude_bots,
      exclude_params: fields.exclude_params,
      exclude_ips: fields.exclude_ips,
      favorite: fields.favorite,
      favorited_at: fields.favorited_at ?? (fields.favorite ? now : null),
      password: fields.password,
      created_at: now,
      updated_at: now,
      account: accountId,
    };
    this.put(row);
    return row;
  }

  /** Applies the changes; like Eloquent, `updated_at` moves only when a value changed. */
  update(row: WebsiteRow, changes: WebsiteChanges): boolean {
    let changed = false;
    const now = timestamp();
    for (const [field, value] of Object.entries(changes) as [keyof WebsiteChanges, unknown][]) {
      if (value === undefined || row[field] === value) continue;
      (row as unknown as Record<string, unknown>)[field] = value;
      changed = true;
      if (field === 'favorite') row.favorited_at = value ? now : null;
    }
    if (changed) row.updated_at = now;
    return changed;
  }

  /** Deletes the website and, as the product's `WebsiteObserver::deleting` does, its traffic. */
  remove(row: WebsiteRow): void {
    const rows = this.byAccount.get(row.account);
    if (!rows?.delete(row.id)) return;
    this.traffic.delete(row.id);
    this.total--;
    const n = (this.domains.get(row.domain) ?? 1) - 1;
    if (n > 0) this.domains.set(row.domain, n);
    else this.domains.delete(row.domain);
  }

  /** The website's traffic by day, day ascending; undefined when it has none. */
  trafficOf(websiteId: number): ReadonlyMap<string, DayTraffic> | undefined {
    return this.traffic.get(websiteId);
  }

  /**
   * Adds checked days to a website's traffic, summing with a day it already has. Days with
   * nothing counted are not kept, so a website with no traffic has no entry.
   */
  addTraffic(websiteId: number, days: Iterable<[string, DayTraffic]>): void {
    const current = this.traffic.get(websiteId) ?? new Map<string, DayTraffic>();
    for (const [day, t] of days) {
      if (t.pageviews === 0 && t.visitors === 0) continue;
      const before = current.get(day);
      current.set(day, before ? { pageviews: before.pageviews + t.pageviews, visitors: before.visitors + t.visitors } : { ...t });
    }
    if (current.size === 0) return;
    // Kept day ascending, so that callers read it in order.
    this.traffic.set(websiteId, new Map([...current].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  }

  private addAccount(account: AccountRecord): void {
    this.accounts.set(account.id, account);
    this.byHash.set(account.keyHash, account);
    if (!this.byAccount.has(account.id)) this.byAccount.set(account.id, new Map());
  }

  private put(row: WebsiteRow): void {
    let rows = this.byAccount.get(row.account);
    if (!rows) this.byAccount.set(row.account, (rows = new Map()));
    rows.set(row.id, row);
    this.total++;
    this.domains.set(row.domain, (this.domains.get(row.domain) ?? 0) + 1);
  }
}

/** A copy without the owner, for callers outside the emulator. */
export function toStored(row: WebsiteRow): StoredWebsite {
  const { account: _account, ...website } = row;
  return website;
}
