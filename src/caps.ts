/**
 * What sitesync reads, waits for or builds, at most: every bound it sets itself, in one place,
 * each named for what it bounds and sized against what real use needs. Each keeps a stranger's
 * input (a pull request's config, a service or a forge that answers too much) from holding a job
 * for hours or a machine's memory. The product's own rules (a domain's 255 characters, a
 * password's 128: src/model/) and the forges' limits (src/ci/github.ts, gitlab.ts) are theirs, not
 * these; the emulator, a program of its own, keeps its own.
 */

// ── Files sitesync reads ─────────────────────────────────────────────────────────────────────

/**
 * A config file, in bytes. Above any real config: 100,000 websites as export writes them take
 * 4.3 MiB as bare domains, 14.6 MiB with every field the product returns set on many. What the
 * parser builds is capped too (the three below).
 */
export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

/** How deep a YAML document nests. A config is 4 levels deep (file → websites → website → list); anything near this is not one. */
export const MAX_YAML_DEPTH = 64;

/**
 * Tokens of yaml's lexer in one document (values, indicators, blanks, line breaks, comments).
 * 100,000 websites as export writes them from the deployed product, with every field set on many
 * of them, take 3.5 million (14.6 MiB); the bare domains of 100,000 websites, 1 million.
 */
export const MAX_YAML_TOKENS = 4_000_000;

/** YAML errors of one file shown, the rest counted: a stranger's file of a million mistakes is not a million lines of output. */
export const MAX_YAML_ERRORS_SHOWN = 100;

/** How often each YAML alias may be expanded: enough for real files, fatal to alias bombs. */
export const MAX_YAML_ALIAS_EXPANSIONS = 100;

/**
 * The globs with `*` a list may hold (`ignore`, `protect`, `retire`, `password_env`); names
 * written out in full, any number. Each domain is tested against each of them, so their number
 * times the websites' is the work: a few dozen are what configs hold, and a stranger's thousands
 * (a pull request's) would keep a job busy for hours.
 */
export const MAX_WILDCARD_GLOBS = 1_000;

/** An API key file, in bytes: a larger one is not a key (and /dev/zero is not read for ever). */
export const MAX_KEY_FILE_BYTES = 4096;

// ── A commit's tree (the config at a git revision) ───────────────────────────────────────────

/**
 * Entries of a commit's tree listed: a repository of configs holds a few thousand files, a large
 * monorepo a few hundred thousand, and a "git bomb" (trees that hold the same tree ten times,
 * nine levels deep: a push of a few kilobytes) a billion.
 */
export const MAX_TREE_ENTRIES = 1_000_000;

/**
 * The longest path of a tree that is read (Linux's PATH_MAX): git stores paths of any length, and
 * a few thousand files whose paths are half a megabyte each (trees nested by a long name, a push
 * of kilobytes) listed gigabytes, for minutes. No checkout could hold such a path anyway.
 */
export const MAX_TREE_PATH_BYTES = 4096;

/** What listing one tree may read in all: a million files of 256-byte paths. */
export const MAX_TREE_LISTING_BYTES = 256 * 1024 * 1024;

// ── Answers of the service and the forges ────────────────────────────────────────────────────

/** One answer's body: far above any of the service's or the CI APIs' (a page of 100 websites is some 50 KiB). */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** How deep a body's objects and arrays are kept when secrets are cleaned out of it. */
export const MAX_CLEANED_BODY_DEPTH = 32;

/**
 * What a walk of pages the client does not trust reads (src/service/pages.ts): the websites of one
 * account's listings in all, ten times the largest account sitesync is used with (100,000), or the
 * values of one statistic, whatever the service says.
 */
export const MAX_LISTED_ITEMS = 1_000_000;

/** Items that may be added while a walk runs (websites created meanwhile), beyond as many as it started with. */
export const MAX_ADDED_WHILE_LISTING = 1_000;

/** The events a delete's traffic read sums, in values (`name:value:unit`): a hundred requests. */
export const MAX_EVENT_VALUES = 10_000;

/**
 * What one website's whole history (an archive) may hold, all names together: far above any
 * website's (3 years of traffic and 3,000 pages are some 5,000 values and 100 KB), and within what
 * one process can assemble, write and read back. A service that sends more is not archived: its
 * read stops there.
 */
export const MAX_HISTORY_VALUES = 1_000_000;
export const MAX_HISTORY_CHARACTERS = 64 * 1024 * 1024;

/** A home page `sitesync verify` reads: enough for any real one; a larger one is read no further. */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;

/** Redirects `sitesync verify` follows from a website's address. */
export const MAX_REDIRECTS = 5;

// ── Waits ────────────────────────────────────────────────────────────────────────────────────

/**
 * The longest the pacer waits for the service's throttle before one request: the product's
 * window is a minute. A 429 that asks for longer (`Retry-After: 86400`, an `X-RateLimit-Reset` a
 * day away), or a window learned that long, is not waited for: the request fails, in words,
 * rather than hold a plan or an apply for a day.
 */
export const MAX_THROTTLE_WAIT_MS = 10 * 60_000;

/** The longest rate-limit wait of a forge's API sat out; a longer one is an error that says when the limit resets. */
export const MAX_RATE_LIMIT_WAIT_MS = 180_000;

// ── What sitesync writes or takes as a flag ──────────────────────────────────────────────────

/** A plan comment's Markdown, in characters: under GitHub's 65,536 with room for the hidden block. */
export const MAX_PLAN_COMMENT_CHARACTERS = 60_000;

/**
 * The lines `fmt --check` shows changed, at most: a diff costs about the
 * square of its changes (a file of 10,000 websites not separated by blank lines took two minutes,
 * of 100,000 hours). Beyond, the diff is not computed, and the command says so.
 */
export const MAX_DIFF_EDITS = 1_000;

/**
 * The longest window `--quiet-days` takes: a hundred years, back past 1970, where no website
 * of the service recorded a pageview. (A window far longer has no calendar day to start from.)
 */
export const MAX_QUIET_DAYS = 36_500;

/** The domain part of an archive's file name, in characters: with the id and the day, well under 255 bytes. */
export const MAX_ARCHIVE_NAME_DOMAIN = 150;

/** Names an archive tries (`base`, `base-2`…) before it gives up: far more than one folder gets in a day. */
export const MAX_ARCHIVE_NAME_TRIES = 1000;
