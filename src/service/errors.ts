/** Failures talking to the service, as messages a person can act on: never a secret or a body. */
import { SitesyncError } from '../messages/errors.js';

export type ApiErrorKind =
  | 'auth' // 401, or a redirect to the login page
  | 'forbidden' // 403: the plan has no API access
  | 'not-found' // 404
  | 'validation' // 422
  | 'rate-limit' // 429 past every retry
  | 'server' // 5xx past every retry
  | 'network' // connection refused or reset
  | 'dns' // the host name does not resolve: a retry will not find it
  | 'timeout'
  | 'protocol'; // an answer sitesync cannot read

export class ApiError extends SitesyncError {
  override name = 'ApiError';
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    readonly status?: number,
    readonly fieldErrors: Record<string, string[]> = {},
  ) {
    super(message);
  }

  get transient(): boolean {
    return this.kind === 'server' || this.kind === 'network' || this.kind === 'timeout';
  }

  /** A 4xx other than not-found, timeout or throttle: sent again unchanged, it fails the same way. */
  get refused(): boolean {
    const s = this.status;
    return s !== undefined && s >= 400 && s < 500 && s !== 404 && s !== 408 && s !== 429;
  }
}

/** The service's own message, e.g. "The domain has already been taken.". */
export function serviceMessage(body: unknown): string | undefined {
  const message = (body as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' && message.trim() ? message.trim() : undefined;
}

/** Field → messages, from Laravel's `errors` or the product's form requests' `message` object. */
export function fieldErrorsOf(body: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const b = (body && typeof body === 'object' ? body : {}) as { errors?: unknown; message?: unknown };
  for (const source of [b.errors, b.message]) {
    for (const [field, list] of Object.entries(source && typeof source === 'object' ? source : {})) {
      const messages = ([] as unknown[]).concat(list).filter((m): m is string => typeof m === 'string' && m.trim() !== '');
      if (messages.length) out[field] = [...(out[field] ?? []), ...messages.filter((m) => !out[field]?.includes(m))];
    }
  }
  return out;
}

/** A refusal as one line, field by field (`domain: …; privacy: …`), else the service's message (`said`). */
function describeRefusal(body: unknown, said: string | undefined): string {
  // Domains are unique across every account of an installation, which the message does not say.
  const hinted = (text: string) => (/already been taken/i.test(text) ? `${text} (another account of this installation may hold it)` : text);
  const parts = Object.entries(fieldErrorsOf(body)).map(([field, messages]) => `${field}: ${hinted(messages.join(' '))}`);
  if (parts.length) return parts.join('; ');
  return said ? hinted(said) : 'the service refused the request without saying why';
}

/** The error for an answer that is not a success; `keyFrom` is for the 401's advice. */
export function errorForStatus(status: number, body: unknown, what: string, keyFrom = 'SITESYNC_API_KEY or --api-key-file'): ApiError {
  const said = serviceMessage(body);
  switch (status) {
    case 401:
      return new ApiError('auth', `the service did not accept the API key (401): check ${keyFrom}`, status);
    case 403:
      // The product's policies refuse one action with this, which is not about the plan.
      if (said && /unauthorized/i.test(said)) return new ApiError('forbidden', `${what}: the service refused it (403: ${said})`, status);
      return new ApiError(
        'forbidden',
        `the account's plan has no API access (403${said ? `: ${said}` : ''}): upgrade the plan or use another account`,
        status,
      );
    case 404:
      return new ApiError('not-found', `${what}: not found (404)`, status);
    case 422:
      return new ApiError('validation', `${what}: ${describeRefusal(body, said)}`, status, fieldErrorsOf(body));
    case 429:
      return new ApiError('rate-limit', `${what}: the service kept answering 429 Too Many Requests`, status);
    default:
      if (status >= 500) return new ApiError('server', `${what}: the service failed (${status}${said ? `: ${said}` : ''})`, status);
      return new ApiError('protocol', `${what}: unexpected answer ${status}${said ? `: ${said}` : ''}`, status);
  }
}
