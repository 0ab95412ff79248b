/**
 * Failures talking to the service, as short messages a person can act on. They never hold the
 * API key, a password or a request body.
 */
import { SitesyncError } from '../errors.js';

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
    /** Laravel validation errors: field → messages. */
    readonly fieldErrors: Record<string, string[]> = {},
  ) {
    super(message);
  }

  /** Whether a retry of the same request may succeed. */
  get transient(): boolean {
    return this.kind === 'server' || this.kind === 'network' || this.kind === 'timeout';
  }
}

/** The service's own message, e.g. "The domain has already been taken.", when it sent one. */
export function serviceMessage(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'message' in body) {
    const message = (body as { message: unknown }).message;
    if (typeof message === 'string' && message.trim()) return message.trim();
  }
  return undefined;
}

export function fieldErrorsOf(body: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (body && typeof body === 'object' && 'errors' in body) {
    const errors = (body as { errors: unknown }).errors;
    if (errors && typeof errors === 'object') {
      for (const [field, list] of Object.entries(errors)) {
        out[field] = ([] as unknown[]).concat(list).filter((m): m is string => typeof m === 'string');
      }
    }
  }
  return out;
}

export function errorForStatus(status: number, body: unknown, what: string): ApiError {
  const said = serviceMessage(body);
  switch (status) {
    case 401:
      return new ApiError('auth', 'the service did not accept the API key (401): check SITESYNC_API_KEY or --api-key-file', status);
    case 403:
      return new ApiError(
        'forbidden',
        `the account's plan has no API access (403${said ? `: ${said}` : ''}): upgrade the plan or use another account`,
        status,
      );
    case 404:
      return new ApiError('not-found', `${what}: not found (404)`, status);
    case 422: {
      const fields = fieldErrorsOf(body);
      const all = Object.values(fields).flat();
      const message = all.length ? all.join(' ') : (said ?? 'the service refused the request');
      return new ApiError('validation', `${what}: ${message}`, status, fields);
    }
    case 429:
      return new ApiError('rate-limit', `${what}: the service kept answering 429 Too Many Requests`, status);
    default:
      if (status >= 500) return new ApiError('server', `${what}: the service failed (${status}${said ? `: ${said}` : ''})`, status);
      return new ApiError('protocol', `${what}: unexpected answer ${status}${said ? `: ${said}` : ''}`, status);
  }
}
