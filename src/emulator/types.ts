/**
 * The emulator's public shapes: how it is started, what it stores, and the fault hooks that
 * tests use to make it misbehave like a real deployment can. `index.ts` re-exports all of it.
 */

export type Profile = 'deployed' | 'full';

/** What the throttle counts by: the client's address (as the product does) or the key. */
export type ThrottleBy = 'address' | 'key';

export interface AccountSeed {
  key: string;
  name?: string;
  email?: string;
  /** The plan's website limit; -1 is unlimited. Unset: `EmulatorOptions.websiteLimit`. */
  websiteLimit?: number;
  /** false: the plan has no API access, every request of this key answers 403. */
  apiAccess?: boolean;
  /** The plan's pageviews a month; -1 is unlimited. Unset: `EmulatorOptions.planPageviews`. */
  planPageviews?: number;
  /** Whether the plan sends e-mail reports. Unset: `EmulatorOptions.emailReports`. */
  emailReports?: boolean;
}

/** What an account's plan allows beyond its website limit, as `GET /account` says it. */
export interface PlanFeatures {
  /** Pageviews a month; -1 is unlimited. */
  pageviews: number;
  emailReports: boolean;
}

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Each its own account. None: one generated key. */
  keys?: (string | AccountSeed)[];
  /** Default 'deployed'. */
  profile?: Profile;
  /** Added before every answer. */
  latencyMs?: number;
  /** Fixed window, counted as `throttleBy` says. Default: none. */
  rateLimit?: { limit: number; windowMs: number } | null;
  /**
   * Default: 'address' in the deployed profile (the product's throttle runs before
   * authentication: every key from one address shares one budget, and a wrong key gets 429
   * once it is spent), 'key' in the full profile (per account, after authentication).
   */
  throttleBy?: ThrottleBy;
  /** The plan limit of accounts that have none of their own. Default -1 (unlimited). */
  websiteLimit?: number;
  /** The plan's pageviews a month (`features.pageviews`) of accounts without their own. Default -1 (unlimited). */
  planPageviews?: number;
  /** Whether the plan has e-mail reports (`features.email_reports`), for accounts without their own. Default true. */
  emailReports?: boolean;
  /** Keep the state in this file (atomic writes, answers sent only once written). */
  dataFile?: string;
  /** One line per request (never the key). Default: none. */
  log?: ((line: string) => void) | null;
  /**
   * Traffic for websites whose domain matches a rule (the first that matches): given when a
   * website is seeded without its own `traffic` or stored through the API, and at start-up to
   * the websites of the data file that have none yet. `parseTrafficRule` reads the CLI form.
   */
  traffic?: TrafficRule[];
}

/** `pageviews` spread over the `days` up to the day the rule applies (UTC), as `spreadTraffic` does. */
export interface TrafficRule {
  /** A domain glob: `*` matches any run of characters within one label. */
  pattern: string;
  pageviews: number;
  days: number;
}

/** One day of a website's traffic. */
export interface DayTraffic {
  pageviews: number;
  visitors: number;
}

/**
 * Traffic by day (`YYYY-MM-DD`, UTC): a pageview count, or the counts. Visitors left out are a
 * third of the pageviews, rounded up.
 */
export type TrafficInput = Record<string, number | { pageviews: number; visitors?: number }>;

/** What `seed` takes: stored as given, without validation beyond domain normalization. */
export interface WebsiteInput {
  domain: string;
  privacy?: number | null;
  email?: number | null;
  exclude_bots?: number | null;
  exclude_params?: string | null;
  exclude_ips?: string | null;
  favorite?: boolean;
  password?: string | null;
  /** Its traffic; left out, the first matching `EmulatorOptions.traffic` rule gives it some. */
  traffic?: TrafficInput;
}

/** A website as the emulator holds it (the password in clear: it is a throwaway stand-in). */
export interface StoredWebsite {
  id: number;
  domain: string;
  privacy: number | null;
  email: number | null;
  exclude_bots: number | null;
  exclude_params: string | null;
  exclude_ips: string | null;
  favorite: boolean;
  favorited_at: string | null;
  password: string | null;
  created_at: string;
  updated_at: string;
}

export interface RequestRecord {
  method: string;
  /** With the query string. */
  path: string;
  /** 0 when nothing was answered (a 'reset' fault, or the client hung up first). */
  status: number;
  ms: number;
  /** Whether the request carried an Authorization header. */
  hadAuth: boolean;
}

export interface FaultRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  /** The body's fields (a JSON body is flattened to strings); null without a body. */
  body: URLSearchParams | null;
  /** 1-based count of requests seen since start (or since `resetStats()`). */
  n: number;
  /** The bearer token sent, or null. */
  key: string | null;
}

/**
 * A status answer replaces the real one; `{delayMs}` waits and then goes on normally;
 * `'reset'` destroys the socket without an answer.
 */
export type FaultAnswer =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { delayMs: number }
  | 'reset';

export interface Faults {
  /** Called for every request before it is handled. */
  before?: (req: FaultRequest) => FaultAnswer | undefined | Promise<FaultAnswer | undefined>;
  /** Store, update and delete: called once the change is committed (and written to disk). */
  afterCommit?: (req: FaultRequest) => FaultAnswer | undefined;
  /** A broken service that lets a domain be stored twice. */
  allowDuplicateDomains?: boolean;
  /** Always 10 per page, and say so in meta.per_page. */
  ignorePerPage?: boolean;
  /** List shape: Laravel resource collection (default) or a bare paginator. */
  envelope?: 'resource' | 'paginator';
  /** Build pagination links (and the login redirect) with this origin, like a misconfigured proxy. */
  linkOrigin?: string;
  /** Leave these out of website records (e.g. 'favorite', as old versions do). */
  omitFields?: string[];
  /** privacy, email and exclude_bots as strings ("1"), as some database drivers return them. */
  stringInts?: boolean;
  /** Newline lists returned with \r\n and a stray blank line. */
  crlfLists?: boolean;
}

export interface EmulatorStats {
  requests: number;
  byStatus: Record<number, number>;
  /** The most recent requests, oldest first (capped at 10,000). */
  log: RequestRecord[];
}

export interface Emulator {
  /** The base URL, e.g. http://127.0.0.1:43123 (the API is under /api/v1). */
  url: string;
  port: number;
  /** The keys of this run, in clear, in the order given (a generated one if none was). */
  keys: string[];
  /** Mutable: tests assign fields (or the whole object) at any time. */
  faults: Faults;
  stats: EmulatorStats;
  resetStats(): void;
  /** Insert directly (no validation beyond domain normalization); returns the stored records. */
  seed(key: string, websites: WebsiteInput[]): StoredWebsite[];
  /** A snapshot of that account's websites, id ascending. */
  websites(key: string): StoredWebsite[];
  /**
   * A copy of a website's traffic (by domain, normalized as `seed` does, or by id), day
   * ascending; undefined when that account has no such website.
   */
  traffic(key: string, website: string | number): Record<string, DayTraffic> | undefined;
  /** Adds to a website's traffic (counts of a day already there are summed); returns the result. */
  addTraffic(key: string, website: string | number, traffic: TrafficInput): Record<string, DayTraffic>;
  /** Closes the server and every connection, and waits for pending writes. */
  close(): Promise<void>;
}
