/**
 * The bundled emulator of the Website Tracking Service: `startEmulator()` runs it in-process
 * (tests, the demo), `sitesync emulator` runs it from the command line. It answers as
 * service-behaviour.md describes deployed installs (profile `deployed`) or with every field
 * (profile `full`), keeps each key's websites apart, and can persist its state to a file.
 */
import { resolve } from 'node:path';
import { SitesyncError, UsageError } from '../messages/errors.js';
import { generateKey, keyProblem } from './auth.js';
import { loadData, Persister } from './persistence.js';
import type { App } from './routes.js';
import { EmulatorServer, hostForUrl } from './server.js';
import { normalizeDomain, State, toStored, type AccountRecord, type WebsiteRow } from './store.js';
import { Throttle } from './throttle.js';
import { readTraffic, trafficRuleProblem, TrafficRules } from './traffic.js';
import type {
  AccountSeed,
  DayTraffic,
  Emulator,
  EmulatorOptions,
  EmulatorStats,
  Faults,
  PlanFeatures,
  Profile,
  StoredWebsite,
  ThrottleBy,
  TrafficInput,
  TrafficRule,
  WebsiteInput,
} from './types.js';

export type * from './types.js';
export { parseRateLimit } from './throttle.js';
export { parseTrafficRule, spreadTraffic } from './traffic.js';

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const settings = checkOptions(options);
  const dataFile = options.dataFile === undefined ? undefined : resolve(options.dataFile);
  const loaded = dataFile === undefined ? undefined : await loadData(dataFile);
  const state = loaded ? State.from(loaded) : new State();
  const rules = new TrafficRules(settings.traffic);
  // Websites of the data file that have no traffic yet get their rule's (written just below).
  for (const row of state.allWebsites()) if (!state.trafficOf(row.id)) rules.apply(state, row);

  const seeds: AccountSeed[] = (options.keys ?? []).map((k) => (typeof k === 'string' ? { key: k } : k));
  if (seeds.length === 0) seeds.push({ key: generateKey() });
  const keys: string[] = [];
  const plans = new Map<number, PlanFeatures>();
  for (const seed of seeds) {
    if (keys.includes(seed.key)) continue;
    keys.push(seed.key);
    const { account } = state.attachKey(seed.key);
    if (seed.name !== undefined) account.name = seed.name;
    if (seed.email !== undefined) account.email = seed.email;
    if (seed.websiteLimit !== undefined) account.websiteLimit = seed.websiteLimit;
    if (seed.apiAccess !== undefined) account.apiAccess = seed.apiAccess;
    // The plan's other features are the run's (as the seed says), not the data file's.
    plans.set(account.id, { pageviews: seed.planPageviews ?? settings.planPageviews, emailReports: seed.emailReports ?? settings.emailReports });
  }

  const persister = dataFile === undefined ? null : new Persister(dataFile, () => state.toData());
  if (persister) {
    // Written once at start, so that a folder we cannot write to fails now, not on the first change.
    try {
      await persister.commit();
    } catch (error) {
      throw new SitesyncError(`cannot write the emulator data file ${dataFile}: ${(error as Error).message}`);
    }
  }

  const emulator = new RunningEmulator(state, persister, keys, settings.profile, settings.websiteLimit, rules, (id) =>
    plans.get(id) ?? { pageviews: settings.planPageviews, emailReports: settings.emailReports },
  );
  const server = new EmulatorServer({
    app: emulator.app,
    faults: () => emulator.faults,
    throttle: settings.rateLimit ? new Throttle(settings.rateLimit.limit, settings.rateLimit.windowMs) : null,
    throttleBy: settings.throttleBy,
    latencyMs: settings.latencyMs,
    log: options.log ?? null,
    secrets: () => keys,
  });
  const port = await server.listen(settings.host, settings.port);
  emulator.attach(server, `http://${hostForUrl(settings.host)}:${port}`, port);
  return emulator;
}

interface Settings {
  host: string;
  port: number;
  profile: Profile;
  latencyMs: number;
  rateLimit: { limit: number; windowMs: number } | null;
  throttleBy: ThrottleBy;
  websiteLimit: number;
  planPageviews: number;
  emailReports: boolean;
  traffic: TrafficRule[];
}

function checkOptions(options: EmulatorOptions): Settings {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`the port must be 0 to 65535, not ${port}`);
  const latencyMs = options.latencyMs ?? 0;
  if (!(latencyMs >= 0) || !Number.isFinite(latencyMs)) throw new UsageError(`the latency must be 0 ms or more, not ${latencyMs}`);
  const websiteLimit = options.websiteLimit ?? -1;
  if (!Number.isInteger(websiteLimit) || websiteLimit < -1) {
    throw new UsageError(`the website limit must be -1 (unlimited) or a count, not ${websiteLimit}`);
  }
  const rateLimit = options.rateLimit ?? null;
  if (rateLimit && !(Number.isInteger(rateLimit.limit) && rateLimit.limit >= 1 && rateLimit.windowMs > 0)) {
    throw new UsageError('the rate limit needs at least 1 request per window of more than 0 seconds');
  }
  const profile = options.profile ?? 'deployed';
  if (profile !== 'deployed' && profile !== 'full') throw new UsageError(`unknown profile ${String(profile)}`);
  const throttleBy = options.throttleBy ?? (profile === 'deployed' ? 'address' : 'key');
  if (throttleBy !== 'address' && throttleBy !== 'key') throw new UsageError(`the throttle counts by address or key, not ${String(throttleBy)}`);
  for (const k of options.keys ?? []) {
    const key = typeof k === 'string' ? k : k.key;
    const problem = keyProblem(key);
    if (problem) throw new UsageError(problem);
    if (typeof k !== 'string' && k.websiteLimit !== undefined && !(Number.isInteger(k.websiteLimit) && k.websiteLimit >= -1)) {
      throw new UsageError(`the website limit must be -1 (unlimited) or a count, not ${k.websiteLimit}`);
    }
    if (typeof k !== 'string' && k.planPageviews !== undefined && !(Number.isInteger(k.planPageviews) && k.planPageviews >= -1)) {
      throw new UsageError(`the plan's pageviews a month must be -1 (unlimited) or a count, not ${k.planPageviews}`);
    }
  }
  const traffic = options.traffic ?? [];
  if (!Array.isArray(traffic)) throw new UsageError('the traffic rules must be a list');
  for (const rule of traffic) {
    const problem = trafficRuleProblem(rule);
    if (problem) throw new UsageError(problem);
  }
  const planPageviews = options.planPageviews ?? -1;
  if (!Number.isInteger(planPageviews) || planPageviews < -1) {
    throw new UsageError(`the plan's pageviews a month must be -1 (unlimited) or a count, not ${planPageviews}`);
  }
  const emailReports = options.emailReports ?? true;
  return { host: options.host ?? '127.0.0.1', port, profile, latencyMs, rateLimit, throttleBy, websiteLimit, planPageviews, emailReports, traffic };
}

class RunningEmulator implements Emulator {
  url = '';
  port = 0;
  faults: Faults = {};
  readonly app: App;
  private server: EmulatorServer | null = null;

  constructor(
    private readonly state: State,
    private readonly persister: Persister | null,
    readonly keys: string[],
    profile: Profile,
    websiteLimit: number,
    private readonly rules: TrafficRules,
    planOf: (accountId: number) => PlanFeatures,
  ) {
    const self = this;
    this.app = {
      state,
      profile,
      websiteLimit,
      planOf,
      trafficRules: rules,
      get faults() {
        return self.faults;
      },
      commit: () => (persister ? persister.commit() : Promise.resolve()),
    };
  }

  attach(server: EmulatorServer, url: string, port: number): void {
    this.server = server;
    this.url = url;
    this.port = port;
  }

  get stats(): EmulatorStats {
    return this.server!.stats;
  }

  resetStats(): void {
    this.server!.resetStats();
  }

  seed(key: string, websites: WebsiteInput[]): StoredWebsite[] {
    const account = this.account(key);
    // Checked before anything is inserted, so that a bad one leaves nothing half-seeded.
    const traffic = websites.map((w) => (w.traffic === undefined ? undefined : readTraffic(w.traffic)));
    const rows = websites.map((w) =>
      this.state.insert(account.id, {
        domain: normalizeDomain(w.domain.trim(), this.app.profile),
        // Left out, fields are what a store that leaves them out saves.
        privacy: w.privacy ?? null,
        email: w.email ?? null,
        exclude_bots: w.exclude_bots === undefined ? 1 : w.exclude_bots,
        exclude_params: w.exclude_params ?? null,
        exclude_ips: w.exclude_ips ?? null,
        favorite: w.favorite ?? false,
        password: w.password ?? null,
      }),
    );
    rows.forEach((row, i) => {
      const days = traffic[i];
      // Its own traffic (even none at all) replaces what a rule would give.
      if (days) this.state.addTraffic(row.id, days);
      else this.rules.apply(this.state, row);
    });
    this.persister?.commit().catch(() => undefined);
    return rows.map(toStored);
  }

  traffic(key: string, website: string | number): Record<string, DayTraffic> | undefined {
    const row = this.website(key, website);
    if (!row) return undefined;
    return Object.fromEntries([...(this.state.trafficOf(row.id) ?? [])].map(([day, t]) => [day, { ...t }]));
  }

  addTraffic(key: string, website: string | number, traffic: TrafficInput): Record<string, DayTraffic> {
    const row = this.website(key, website);
    if (!row) throw new Error(`the emulator has no website ${JSON.stringify(website)} in this key's account`);
    this.state.addTraffic(row.id, readTraffic(traffic));
    this.persister?.commit().catch(() => undefined);
    return this.traffic(key, row.id)!;
  }

  websites(key: string): StoredWebsite[] {
    return this.state.websitesOf(this.account(key).id).map(toStored);
  }

  async close(): Promise<void> {
    await this.server?.close();
    await this.persister?.flush();
  }

  /** Summary numbers for the command's banner. */
  get totals(): { accounts: number; websites: number } {
    return { accounts: this.state.accountCount, websites: this.state.websiteCount };
  }

  /** The account's website of that id, or of that domain (normalized as `seed` does; the oldest). */
  private website(key: string, website: string | number): WebsiteRow | undefined {
    const account = this.account(key);
    if (typeof website === 'number') return this.state.find(account.id, website);
    const domain = normalizeDomain(website.trim(), this.app.profile);
    return this.state.websitesOf(account.id).find((r) => r.domain === domain);
  }

  private account(key: string): AccountRecord {
    const account = this.state.accountByKey(key);
    if (!account) throw new Error('the emulator has no account with this key');
    return account;
  }
}

/** The banner's numbers, for an emulator started by `startEmulator`. */
export function emulatorTotals(emulator: Emulator): { accounts: number; websites: number } {
  return emulator instanceof RunningEmulator ? emulator.totals : { accounts: emulator.keys.length, websites: 0 };
}
