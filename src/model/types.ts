/**
 * The data sitesync works on. Plain, JSON-able values only: the config module produces
 * `Config`, the service client produces `LiveWebsite` and `Account`, the planner turns them
 * into a `Plan`, renderers and the executor consume it.
 */
import type { Diagnostic } from '../messages/errors.js';
import type { Secret } from '../secrets/secret.js';

export type Privacy = 0 | 1 | 2;
export type Flag = 0 | 1;

/**
 * The value of each website setting, the same in the file, on the service and in plans.
 * `fields.ts` holds what each one means, one row each, in order; the password, a secret, is
 * typed where it is held (a `Secret` in the file, whether one is set on the service).
 */
export interface Settings {
  privacy: Privacy;
  email: Flag;
  exclude_bots: Flag;
  exclude_params: string[];
  exclude_ips: string[];
  favorite: boolean;
}

/** The website fields that sitesync manages. */
export type FieldName = keyof Settings | 'password';

export const PRIVACY_NAMES = ['public', 'private', 'password'] as const;

export interface Position {
  line: number;
  col: number;
}

/** Settings that `defaults` may carry (every one but those enforced only where a website sets them). */
export type DefaultSettings = Partial<Omit<Settings, 'favorite'>>;

export interface DesiredWebsite extends Partial<Settings> {
  /** Normalized: lower case, ASCII (punycode), no leading `www.`. */
  domain: string;
  /** As written in the file, for messages. */
  written: string;
  pos: Position;
  /** The included file the entry is in (absolute), when it is not the main config file; `pos` is in it. */
  file?: string;
  password?: Secret;
}

export interface Pattern {
  glob: string;
  pos: Position;
}

export interface Safety {
  max_delete_percent: number;
  min_existing: number;
  /** A website with pageviews in this many last days is active: deleted only when `retire` lists it. */
  active_days: number;
}

export const DEFAULT_SAFETY: Safety = { max_delete_percent: 30, min_existing: 10, active_days: 30 };

/** Where archives of deleted websites go (`archive:` in the file, or `apply --archive DIR`). */
export interface ArchiveFolder {
  /** Absolute. */
  dir: string;
  /** As the file or the command line writes it, for plans and messages. */
  shown: string;
  /** Where the file writes it; absent for the flag. */
  pos?: Position;
}

export interface Config {
  file: string;
  /** In a many-account file: which account this is and where its key comes from. */
  account?: AccountSource;
  baseUrl?: string;
  defaults: DefaultSettings;
  prune: boolean;
  protect: Pattern[];
  ignore: Pattern[];
  /**
   * `ignore:` entries that name another spelling of a listed website (`x.org.` beside a listed
   * `x.org`, a punycode form beside unicode): the service's twin stored so is left alone, knowingly,
   * without the warning of a name held twice. Not in `ignore` (the listed website stays managed).
   */
  twinSpellings?: Pattern[];
  /** Websites to delete with their history, active or not (`retire:`). */
  retire: Pattern[];
  safety: Safety;
  /** Archive each delete's history here before the delete is sent (`archive:`). */
  archive?: ArchiveFolder;
  /** Where the file writes `safety:` and each of its keys (a key it does not write has its default). */
  safetyAt?: Partial<Record<keyof Safety | 'safety', Position>>;
  /** `password_env:` the variables the websites' passwords may read (names or globs); undefined: any. */
  passwordEnv?: Pattern[];
  websites: DesiredWebsite[];
  warnings: Diagnostic[];
}

/** An account of a many-account file (`accounts: NAME: …`). */
export interface AccountSource {
  name: string;
  /** The NAME of the environment variable that holds the account's API key (never the key). */
  apiKeyEnv: string;
  /** Where the account's name is written in the main file. */
  pos: Position;
}

/**
 * What one config file describes: a list of accounts. A single-account file is a workspace of
 * one account, unnamed, whose base URL and key come from the flags and `SITESYNC_*`; an
 * `accounts:` file names each account, with its own base URL and key variable. Every file it
 * includes is already read.
 */
export interface Workspace {
  /** The main config file (absolute). */
  file: string;
  /** The file holds `accounts:`; false for a single-account file, whose one config has no `account`. */
  multi: boolean;
  /** One per account, in the file's order. */
  configs: Config[];
  /** Every warning, from every file read. */
  warnings: Diagnostic[];
  /** SHA-256 of the main file's text and every included file's (what a saved plan is bound to). */
  sha256: string;
  /** Every file read (absolute): the main file first, then included files in the order read. */
  files: string[];
  /** Each included file (absolute) and the account that includes it ('' for a single-account file). */
  includedBy?: Record<string, string>;
}

/**
 * A website as read from the service, normalized. A field that is `undefined` was not in the
 * record: the service does not return it, so sitesync treats it as write-only.
 */
export interface LiveWebsite extends Partial<Settings> {
  id: number;
  /** The domain's key (`domainKey`): what the file's domains are matched against. */
  domain: string;
  /**
   * The domain as the service stores it (lower case), when that differs from the key (a
   * trailing dot, unicode): exported and named in warnings as the service has it.
   */
  stored?: string;
  /** Whether a password is set (the service never returns its value). */
  password?: boolean;
}

export interface Account {
  id: number | string | null;
  name: string;
  email: string;
  plan: string;
  /** `null`: unlimited (the service says -1). */
  websiteLimit: number | null;
  /** The plan's pageviews a month, after which every website of the account stops recording; `null` or absent: unlimited (-1) or not said. */
  pageviewLimit?: number | null;
  /** Whether the plan sends e-mail reports; `null` or absent: the service does not say. */
  emailReports?: boolean | null;
}

/** How a website looks in a plan: live values before, enforced values after. */
export interface WebsiteView extends Partial<Settings> {
  domain: string;
  /** Before: whether one is set. After: `(sensitive)` when sitesync sends one. */
  password?: boolean | '(sensitive)';
}

export type FieldValue = WebsiteView[keyof WebsiteView];

/** Why a field the service does not show is sent anyway. */
export type WriteOnlyReason = 'create' | 'with-update' | 'baseline' | 'missing' | 'resend';

export interface FieldChange {
  field: FieldName;
  /** Live value; `null` when the service does not show it. */
  before: FieldValue | null;
  after: FieldValue | null;
  /** Set when the live value could not be read, with the reason it is sent. */
  write_only?: WriteOnlyReason;
  /** Sending it replaces a value the service holds but does not show (updates only). */
  overwrites_unread?: true;
}

export type Action = 'create' | 'update' | 'delete';

interface ChangeCommon {
  domain: string;
  /** The fields this change sends (create: every enforced field). */
  fields: FieldName[];
  /** Per-field detail for renderers (update: what differs; create: what is sent). */
  details: FieldChange[];
  /** Where the website is in the file (creates and updates). */
  line?: number;
  /** The included file it is in, relative to the config file's folder; absent for the config file itself. */
  file?: string;
}

/**
 * Where a password a change sends comes from, by name only (never its value): the variables its
 * `${NAME}`s read, and whether text written in clear in the file is part of it.
 */
export interface PasswordSource {
  variables: string[];
  clear: boolean;
}

/**
 * A domain that leaves one account and joins another of the same installation (which stores a
 * domain once): the delete in `from` goes before the create in `to`, and the history stays with
 * `from`, destroyed there. Both changes carry it.
 */
export interface Move {
  from: string;
  to: string;
}

/** A website the file lists and the service lacks: stored with every enforced field. */
export interface CreateChange extends ChangeCommon {
  action: 'create';
  id: null;
  before: null;
  after: WebsiteView;
  /** Where the password in `after` comes from, when the file sets one. */
  password_from?: PasswordSource;
  /** It moves here from another account of the installation: created once that account's delete went through. */
  move?: Move;
}

/** A website both have, with fields that differ or write-only fields sent. */
export interface UpdateChange extends ChangeCommon {
  action: 'update';
  id: number;
  before: WebsiteView;
  after: WebsiteView;
  /** Where the password in `after` comes from, when the file sets one. */
  password_from?: PasswordSource;
  /** A hash of the live website as the plan saw it: apply refuses when it changed. */
  seen: string;
}

/** A website the service holds and the file does not list, pruned. Sends no field. */
export interface DeleteChange extends ChangeCommon {
  action: 'delete';
  id: number;
  before: WebsiteView;
  after: null;
  /** A hash of the live website as the plan saw it: apply refuses when it changed. */
  seen: string;
  /** What the delete destroys, read from the stats API; null when it could not be read (`traffic_unknown` says why). */
  traffic?: Traffic | null;
  traffic_unknown?: string;
  /** The website was deleted at the service (by another run) after it was listed: nothing left to destroy. */
  gone?: true;
  /** `retire:` lists it: deleted with its history, active or not. */
  retired?: true;
  /** Its history is archived in this folder (as the file or flag writes it) before the delete is sent. */
  archive?: string;
  /** It moves to another account of the installation: deleted here (with every rule of a delete) before the create there. */
  move?: Move;
  /**
   * Not sent, and why: an earlier reading of its history (a saved plan's) found more than the
   * service answers now, and history only grows (planner/history-grows.ts). apply fails it unsent.
   */
  held?: string;
}

/** What a website's statistics hold: a delete destroys them with it, and there is no undo. */
export interface Traffic {
  /** Pageviews recorded in the website's lifetime. */
  pageviews: number;
  /** Pageviews in the last 30 days. */
  pageviews_30d: number;
  /** Pageviews in the last `recent_days` days (safety.active_days): a website with any is active. */
  pageviews_recent: number;
  recent_days: number;
  /** Pageviews of each of the last 30 days, oldest first (the plan's sparkline). */
  daily_30d: number[];
  /**
   * Events recorded in the website's lifetime, read when it has no pageviews: an event hit records
   * no pageview, so a website without any may still have a history. Undefined when not read.
   */
  events?: number;
  /**
   * Events in the last `recent_days` days, read when there are no pageviews in them: an event hit
   * is activity too, and a website with any is active. Undefined when not read (pageviews said so).
   */
  events_recent?: number;
}

/**
 * One change of a plan, typed by what it does (the saved-plan schema holds the same rules, so a
 * loaded plan has these shapes too).
 */
export type Change = CreateChange | UpdateChange | DeleteChange;

export interface Summary {
  create: number;
  update: number;
  delete: number;
  unchanged: number;
  unmanaged: number;
}

export interface SafetyCheck {
  managed: number;
  deletes: number;
  percent: number;
  max_delete_percent: number;
  min_existing: number;
  /** The share of deletes passes the threshold. */
  exceeded: boolean;
  /** The file lists no websites and the plan deletes some. */
  empty_file: boolean;
  /**
   * Deletes of websites with recent pageviews (or whose traffic could not be read) that
   * `retire:` does not list: apply refuses them. Empty until the deletes' traffic is read.
   */
  active?: string[];
}

export interface LimitCheck {
  limit: number | null;
  live: number;
  after: number;
  exceeded: boolean;
}

/** One account's plan. A run plans a list of accounts (`AccountPlan`). */
export interface Plan {
  base_url: string;
  /** Who the plan was made for: a saved plan is applied only with a key of this account. */
  account: { id: number | string | null; name: string; email: string } | null;
  summary: Summary;
  changes: Change[];
  warnings: string[];
  /** Fields whose live value could not be read for at least one compared website. */
  unverified: FieldName[];
  safety: SafetyCheck;
  limit: LimitCheck;
}

/** Why an account has no plan, or was not applied: a message, then lines that explain it. */
export interface Failure {
  message: string;
  details: string[];
}

/** One account of a run: its plan, or why there is none. */
export interface AccountPlan {
  /** The account's name in the file; '' for the one account of a single-account file. */
  name: string;
  baseUrl: string;
  plan?: Plan;
  failure?: Failure;
}

/**
 * What a plan comment approved: its hidden `<!-- sitesync-approved: … -->` block, a digest of each
 * account's changes and the SHA-256 of the config files it was planned from. apply compares its
 * own plan with it, and never takes a change from it.
 */
export interface ApprovedPlan {
  version: 1;
  /** The workspace's SHA-256: the config file's text and every file it includes. */
  config_sha256: string;
  accounts: ApprovedAccount[];
}

export interface ApprovedAccount {
  /** null: the one account of a single-account file. */
  name: string | null;
  /** The account could not be planned then. */
  failed?: true;
  /** How many changes, and a digest of them all. */
  count: number;
  digest: string;
  /** Each change (its action, domain and digest); left out of a block that would be too large. */
  changes?: [Action, string, string][];
}

/** How apply's plan compares with the approved one (`apply --approved FILE`). */
export interface ApprovalCheck {
  /** The approved plan's file, as the user named it. */
  file: string;
  /** Why nothing could be compared (no approved block in the file); undefined when compared. */
  unavailable?: string;
  /** The changes of apply's plan. */
  count: number;
  differences: ApprovalDifference[];
  /** Why they differ: the config files changed since the approved plan, or the service did. */
  why?: 'merged without a new plan' | 'changed at the service since the plan';
}

export interface ApprovalDifference {
  /** '' for the one account of a single-account file. */
  account: string;
  /** added: planned now, not approved; missing: approved, not planned now; different: planned otherwise. */
  kind: 'added' | 'missing' | 'different';
  change?: { action: Action; domain: string; id?: number | null };
  /** What differs where single changes cannot be named (an account not planned, a block without its list). */
  note?: string;
}

/** The outcome of one change of a plan, as apply ran it. */
export interface ChangeResult {
  change: Change;
  /** `gone`: a delete that found the website already deleted (by another run): not counted as deleted. */
  status: 'done' | 'gone' | 'failed' | 'skipped';
  /** The service's own message, or what went wrong. */
  error?: string;
  /** The service refused the change (a 4xx): running it again unchanged fails the same way. */
  refused?: boolean;
  /** E.g. "already deleted", "the store's answer was lost; found it stored". */
  note?: string;
  /** The archive a delete wrote before it was sent (its JSON file, as shown; the CSV is beside it). */
  archive?: string;
  ms: number;
}

export interface ExecuteResult {
  results: ChangeResult[];
  interrupted: boolean;
}

/** One account of an apply: what its changes did, or why it was not applied. */
export interface AccountOutcome {
  name: string;
  outcome?: ExecuteResult;
  failure?: Failure;
}
