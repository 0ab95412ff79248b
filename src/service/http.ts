/**
 * HTTP to the service: every request pinned to the base URL's origin, paced, retried where safe,
 * its answer bounded, its failure in words; what the service says is cleaned of the run's secrets first.
 */
import { unescape } from 'node:querystring';
import { Pool } from 'undici';
import { InterruptedError } from '../messages/errors.js';
import { packageVersion } from '../io/paths.js';
import { SecretValues } from '../secrets/values.js';
import { ApiError, errorForStatus, serviceMessage } from './errors.js';
import { Pacer, realClock, ThrottleTooLong } from './pacer.js';
import { ANSWER_DEADLINE_MS, AnswerTooLarge, certificateProblem, checkServerIdentity, classifyTransportError, deadline, header, readCapped, type Answer, type Method } from './transport.js';
import { MAX_ANSWER_BYTES, MAX_THROTTLE_WAIT_MS } from '../caps.js';
import type { Form } from './wire.js';

/** Attempts after a 5xx or a network error (the first included), none past budgetMs since the first. */
const RETRY = { attempts: 5, baseDelayMs: 300, maxDelayMs: 8000, budgetMs: 60_000, max429: 30 };
/** What tests shorten. Reads time out between chunks, deadlines bound the whole answer; statistics' are shorter and not retried. */
const LIMITS = { ...RETRY, readTimeoutMs: 30_000, statsTimeoutMs: 15_000, deadlineMs: ANSWER_DEADLINE_MS, statsDeadlineMs: 30_000, maxAnswerBytes: MAX_ANSWER_BYTES, listConcurrency: 12 };

export interface ClientOptions extends Partial<typeof LIMITS> {
  baseUrl: string;
  apiKey: string;
  /** Where the key came from, for the advice when the service refuses it (never the key). */
  keyFrom?: string;
  /** Shared with the caller, so that passwords registered later count too (the key is added). */
  secrets?: SecretValues;
  /** One line per request (`--verbose`): never the key or a body. */
  log?: (line: string) => void;
  /** One per installation: its throttle may count every key from this address (service-behaviour.md). */
  pacer?: Pacer;
  /** Aborts reads in progress (Ctrl-C). Writes are never cut off half way. */
  signal?: AbortSignal;
}

export type RequestKind = 'account' | 'listing' | 'search' | 'count' | 'show' | 'statistics' | 'archive' | 'write';

export interface RequestSpec {
  method: Method;
  kind: RequestKind;
  /** Below the API root, e.g. `/websites?page=2`. */
  path: string;
  form?: Form;
  /** For messages: "update example.com". */
  what: string;
  /** Before a retry after a 5xx; may throw to stop retrying. */
  beforeRetry?: (error: ApiError) => Promise<void>;
  /** A POST: after a lost answer, what the lost attempt did if it was done; else it is sent again. */
  ifDone?: () => Promise<Answer | undefined>;
}

const readsStats = (spec: RequestSpec) => spec.kind === 'statistics' || spec.kind === 'archive';

export class ServiceHttp {
  /** `byKind`: requests (each attempt) by what they were for. */
  readonly stats = { requests: 0, retries: 0, byKind: {} as Partial<Record<RequestKind, number>> };
  private readonly pool: Pool;
  private readonly url: URL;
  private readonly apiRoot: string;
  private readonly pacer: Pacer;
  private readonly headers: Record<string, string>;
  private readonly secrets: SecretValues;
  private closed = false;
  protected readonly options: ClientOptions & typeof LIMITS;

  constructor(options: ClientOptions) {
    this.options = { ...LIMITS, ...options };
    this.secrets = options.secrets ?? new SecretValues();
    this.secrets.add(options.apiKey);
    this.url = new URL(options.baseUrl);
    this.apiRoot = `${this.url.pathname.replace(/\/+$/, '')}/api/v1`;
    this.pool = new Pool(this.url.origin, {
      connections: 16,
      connectTimeout: 10_000,
      headersTimeout: this.options.readTimeoutMs,
      bodyTimeout: this.options.readTimeoutMs,
      keepAliveTimeout: 10_000,
      connect: { checkServerIdentity },
    });
    this.pacer = options.pacer ?? new Pacer();
    this.headers = {
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
      'user-agent': `sitesync/${packageVersion()}`,
    };
  }

  /** Text the service holds, cleaned of the run's secrets: it may hold or echo the key or a password. */
  readonly cleaned = (text: string): string => this.secrets.cleanData(text);

  /** Whether `value` is this client's API key (compared here, so the key stays inside). */
  usesKey(value: string): boolean {
    return value === this.options.apiKey;
  }

  async close(): Promise<void> {
    // A request still in flight (a sibling of one that failed the run) ends when the pool does: not news.
    this.closed = true;
    if (!this.options.pacer) this.pacer.close();
    await this.pool.close();
  }

  /** One request with retries: 429 waits as the service says; 5xx and network errors back off. */
  async call(spec: RequestSpec): Promise<Answer> {
    const { attempts, budgetMs, max429, maxDelayMs, baseDelayMs } = this.options;
    const started = Date.now();
    let failures = 0;
    let throttled = 0;
    for (;;) {
      let error: ApiError;
      try {
        const answer = await this.send(spec, failures + throttled);
        if (answer.status >= 200 && answer.status < 300) return answer;
        // The pacer holds every request until the window ends; past max429, the 429 is not retried.
        if (answer.status === 429 && ++throttled <= max429) continue;
        // The service's words may echo the form, password included: cleaned before they are a message.
        error = this.errorFor(spec, { ...answer, body: this.secrets.cleanDeep(answer.body) });
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        error = e;
      }
      failures++;
      const done = error.transient ? await spec.ifDone?.() : undefined;
      if (done) return done;
      // A PATCH sets what it sets, a DELETE finds it gone: only a POST would do twice what it did once.
      const retryable = error.transient && (spec.method !== 'POST' || spec.ifDone !== undefined) && !(readsStats(spec) && error.kind === 'timeout');
      if (!retryable || failures >= attempts || Date.now() - started > budgetMs) throw error;
      await spec.beforeRetry?.(error);
      this.stats.retries++;
      const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** (failures - 1));
      await realClock.sleep(cap / 2 + Math.random() * (cap / 2));
    }
  }

  /**
   * A 404 of a route every version has (the account, the list), or without the service's own message
   * (the web server's bare `{"message": ""}`), means the request never reached the API: the base URL is wrong.
   */
  private errorFor(spec: RequestSpec, answer: Answer): ApiError {
    const requested = `${spec.method} ${this.url.origin}${this.apiRoot}${spec.path.split('?')[0]}`;
    if ((answer.status === 404 && (['account', 'listing', 'search', 'count'].includes(spec.kind) || serviceMessage(answer.body) === undefined)) || answer.status === 405) {
      const why = answer.status === 404 ? 'no such route' : `the service has no such route for ${spec.method}`;
      return new ApiError('protocol', `${spec.what}: ${requested} answered ${answer.status} (${why}): ${baseUrlAdvice(this.url)}`, answer.status);
    }
    return errorForStatus(answer.status, answer.body, spec.what, this.options.keyFrom);
  }

  private async send(spec: RequestSpec, attempt: number): Promise<Answer> {
    const signal = spec.method === 'GET' ? this.options.signal : undefined;
    const allowedMs = readsStats(spec) ? this.options.statsDeadlineMs : this.options.deadlineMs;
    const path = `${this.apiRoot}${spec.path}`;
    let limit: ReturnType<typeof deadline> | undefined;
    let sentAt: number | undefined;
    let status: number | undefined;
    let responseHeaders: Answer['headers'] = {};
    const counted = (line: string) => {
      this.stats.requests++;
      this.stats.byKind[spec.kind] = (this.stats.byKind[spec.kind] ?? 0) + 1;
      this.options.log?.(`${spec.method} ${path} ${line}`);
    };
    try {
      signal?.throwIfAborted();
      sentAt = await this.pacer.acquire(signal);
      limit = deadline(allowedMs, signal);
      const body = spec.form && new URLSearchParams(spec.form).toString();
      const headers = body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/x-www-form-urlencoded' };
      const timeouts = readsStats(spec) ? { headersTimeout: this.options.statsTimeoutMs, bodyTimeout: this.options.statsTimeoutMs } : {};
      const res = await this.pool.request({ method: spec.method, path, headers, body, signal: limit.signal, ...timeouts });
      status = res.statusCode;
      responseHeaders = res.headers;
      const text = await readCapped(res, this.options.maxAnswerBytes);
      counted(`${status} ${Date.now() - sentAt}ms${attempt ? ` (retry ${attempt})` : ''}`);
      if (status >= 300 && status < 400) throw redirectError(header(responseHeaders, 'location'), this.secrets);
      return { status, headers: responseHeaders, body: parseBody(text, status, spec.what) };
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (sentAt !== undefined && status === undefined && !this.closed) {
        // Node's code, else the words (a DOMException, as a deadline's abort is, has a number for a code).
        const { code, message } = error as { code?: unknown; message?: string };
        counted(`failed: ${this.secrets.clean(typeof code === 'string' ? code : (message ?? String(error)))} after ${Date.now() - sentAt}ms`);
      }
      if (signal?.aborted) throw new InterruptedError('interrupted');
      if (error instanceof AnswerTooLarge) {
        throw new ApiError('protocol', `${spec.what}: the service answered ${error.message}, which no answer of the service is; nothing more was read (is the base URL the service's address?)`);
      }
      if (error instanceof ThrottleTooLong) {
        throw new ApiError(
          'rate-limit',
          `${spec.what}: the service asks to wait ${formatWait(error.waitMs)} before its next request (its 429's Retry-After or X-RateLimit-Reset), longer than sitesync waits (${formatWait(MAX_THROTTLE_WAIT_MS)}): nothing more was sent; try again later`,
        );
      }
      if (limit?.expired()) {
        throw new ApiError('timeout', `${spec.what}: ${this.url.host} did not send its whole answer within ${Math.round(allowedMs / 100) / 10} s`);
      }
      throw transportError(error, this.url, spec.what, this.secrets);
    } finally {
      if (sentAt !== undefined) this.pacer.release(sentAt, status, responseHeaders);
    }
  }
}

/** "3 minutes", "1 day": how long the throttle asks to wait, as people say it. */
function formatWait(ms: number): string {
  const [n, unit] = ms >= 2 * 86_400_000 ? [ms / 86_400_000, 'day'] : ms >= 2 * 3_600_000 ? [ms / 3_600_000, 'hour'] : ms >= 120_000 ? [ms / 60_000, 'minute'] : [ms / 1000, 'second'];
  return new Intl.NumberFormat('en-US', { style: 'unit', unit, unitDisplay: 'long', maximumFractionDigits: 0, useGrouping: false }).format(n);
}

/** What to do about a base URL that reaches no API route. */
function baseUrlAdvice(url: URL): string {
  const path = url.pathname.replace(/\/+$/, '');
  const base = 'the base URL looks wrong: it should be the service\'s own address, the part before /api/v1';
  if (/\/api$/.test(path)) return `${base} (sitesync adds /api/v1 itself): try ${url.origin}${path.slice(0, -4)}`;
  if (path !== '') return `${base}; is the service really served under ${path}? (try ${url.origin})`;
  return base;
}

function parseBody(text: string, status: number, what: string): unknown {
  try {
    return text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    if (status < 200 || status >= 300) return undefined;
    throw new ApiError('protocol', `${what}: the service answered with something that is not JSON: is the base URL the service's address (without /api/v1)?`, status);
  }
}

function redirectError(to: string | undefined, secrets: SecretValues): ApiError {
  // Cleaned as written, as a path, then decoded (leniently): a password echoed in the Location, however spelt.
  const written = to && secrets.clean(to);
  const path = written && URL.canParse(written, 'http://x') ? secrets.clean(new URL(written, 'http://x').pathname) : '';
  const where = path ? ` to ${secrets.clean(unescape(path))}` : '';
  return new ApiError(
    'auth',
    `the service redirected${where} instead of answering (a login page): the base URL or the API key is wrong`,
  );
}

function transportError(error: unknown, url: URL, what: string, secrets: SecretValues): ApiError {
  const { failure, code } = classifyTransportError(error);
  switch (failure) {
    case 'connect-timeout':
      return new ApiError('timeout', `${what}: could not connect to ${url.host} in time`);
    case 'read-timeout':
      return new ApiError('timeout', `${what}: ${url.host} did not answer in time`);
    case 'refused':
      return new ApiError('network', `${what}: cannot connect to ${url.host} (connection refused): is the base URL right and the service up?`);
    case 'dns':
      // Not retried: a wrong host name stays wrong, and a run should not spin on it.
      return new ApiError(
        'dns',
        `${what}: cannot find the host ${url.hostname} (DNS ${code}): check the base URL (--base-url, SITESYNC_BASE_URL or api.base_url in the file)`,
      );
    case 'lost':
      return new ApiError('network', `${what}: the connection to ${url.host} was lost`);
    case 'certificate': {
      // Not retried ('protocol' is not transient): the same certificate comes back.
      const { problem, check } = certificateProblem(error, code!);
      return new ApiError('protocol', `${what}: the TLS certificate of ${url.host} ${secrets.clean(problem)}: ${check} (${code})`);
    }
    case 'not-tls':
      return new ApiError('protocol', `${what}: ${url.host} does not answer in TLS (${code}): is it an http:// address, or the wrong port?`);
    default:
      return new ApiError('network', `${what}: cannot reach ${url.host} (${secrets.clean(code ?? 'network error')})`);
  }
}
