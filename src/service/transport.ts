/** Below HTTP, for the service's client and GitHub's and GitLab's: undici's errors read once, answers bounded. */
import { checkServerIdentity as nodeCheckServerIdentity, type PeerCertificate } from 'node:tls';
import { errors as undiciErrors, type Dispatcher } from 'undici';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON (the service's client: undefined when not JSON; the CI's: the raw text). */
  body: unknown;
}

export function header(headers: Answer['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export type TransportFailure =
  | 'aborted'
  | 'connect-timeout'
  | 'read-timeout'
  | 'refused'
  | 'dns'
  | 'lost'
  | 'certificate'
  | 'not-tls' // an http port where https:// expects TLS
  | 'other';

export function classifyTransportError(error: unknown): { failure: TransportFailure; code?: string } {
  if ((error as { name?: string }).name === 'AbortError') return { failure: 'aborted' };
  if (error instanceof undiciErrors.ConnectTimeoutError) return { failure: 'connect-timeout' };
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    return { failure: 'read-timeout' };
  }
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  if (code !== undefined && code in CERTIFICATE_PROBLEMS) return { failure: 'certificate', code };
  switch (code) {
    case 'ECONNREFUSED':
      return { failure: 'refused', code };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { failure: 'dns', code };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return { failure: 'lost', code };
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
    case 'ERR_SSL_PACKET_LENGTH_TOO_LONG':
      return { failure: 'not-tls', code };
    default:
      return { failure: 'other', code: code ?? (error as Error).message ?? 'network error' };
  }
}

/**
 * Node's host name check, its error under another code: undici treats ERR_TLS_CERT_ALTNAME_INVALID
 * apart and then never finishes closing its pool, so that a run would end without a word (exit 0).
 */
export function checkServerIdentity(host: string, cert: PeerCertificate): Error | undefined {
  const error = nodeCheckServerIdentity(host, cert);
  if (error) Object.assign(error, { code: 'HOSTNAME_MISMATCH' });
  return error;
}

const PRIVATE_AUTHORITY = "for a private authority (a company's own, or a proxy that inspects TLS), set NODE_EXTRA_CA_CERTS to a PEM file of its certificate";
const OTHER_NAMES = { problem: 'is for other names', check: 'the host name in the base URL must be one it names' };
const NOT_VALID = { problem: 'is not valid', check: 'the service must replace it' };
const NOT_VALID_CODES = [
  'INVALID_CA', 'CERT_CHAIN_TOO_LONG', 'PATH_LENGTH_EXCEEDED', 'CERT_SIGNATURE_FAILURE', 'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY', 'ERROR_IN_CERT_NOT_BEFORE_FIELD', 'ERROR_IN_CERT_NOT_AFTER_FIELD',
];

/** Node's codes for a certificate it refuses, as the words after "the certificate of HOST" (none of revocation lists: Node checks none). */
const CERTIFICATE_PROBLEMS: Readonly<Record<string, typeof NOT_VALID>> = {
  ERR_TLS_CERT_ALTNAME_INVALID: OTHER_NAMES,
  HOSTNAME_MISMATCH: OTHER_NAMES,
  CERT_HAS_EXPIRED: { problem: 'has expired', check: "the service must renew it, unless this computer's clock is wrong" },
  CERT_NOT_YET_VALID: { problem: 'is not valid yet', check: "is this computer's clock right?" },
  DEPTH_ZERO_SELF_SIGNED_CERT: {
    problem: 'is self-signed',
    check: "if it is your own service's, trust it: set NODE_EXTRA_CA_CERTS to a PEM file of that certificate",
  },
  SELF_SIGNED_CERT_IN_CHAIN: { problem: 'is signed by an authority this computer does not trust', check: PRIVATE_AUTHORITY },
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: { problem: 'is signed by an unknown authority', check: PRIVATE_AUTHORITY },
  UNABLE_TO_GET_ISSUER_CERT: { problem: 'is signed by an unknown authority', check: PRIVATE_AUTHORITY },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: {
    problem: 'cannot be traced to an authority this computer knows',
    check: `the service may leave out its intermediate certificates (it must send them); ${PRIVATE_AUTHORITY}`,
  },
  CERT_UNTRUSTED: { problem: 'is not trusted for serving a website', check: 'the service must replace it' },
  CERT_REVOKED: { problem: 'has been revoked', check: 'the service must replace it' },
  CERT_REJECTED: { problem: "is refused by this computer's trust settings", check: 'check the authorities this computer trusts (NODE_EXTRA_CA_CERTS)' },
  INVALID_PURPOSE: { problem: 'is not one for a website', check: 'the service must replace it' },
  ...Object.fromEntries(NOT_VALID_CODES.map((code) => [code, NOT_VALID])),
};

/** For the wrong host name, the names the certificate is for (the server's text: the caller cleans it). */
export function certificateProblem(error: unknown, code: string): typeof NOT_VALID {
  const known = CERTIFICATE_PROBLEMS[code] ?? NOT_VALID;
  if (known !== OTHER_NAMES) return known;
  const cert = (error as { cert?: { subjectaltname?: unknown; subject?: { CN?: unknown } } }).cert;
  const altNames = typeof cert?.subjectaltname === 'string' ? cert.subjectaltname.split(', ') : [];
  const names = altNames.map((n) => n.replace(/^(DNS|IP Address):/, '')).filter(Boolean);
  if (!names.length && typeof cert?.subject?.CN === 'string') names.push(cert.subject.CN);
  const shown = names.length > 4 ? [...names.slice(0, 4), `${names.length - 4} more`] : names;
  return shown.length ? { ...known, problem: `${known.problem} (${shown.join(', ')})` } : known;
}

/** Answers are some 50 KiB at most (a page of 100 websites, of comments): two minutes is a server that does not answer. */
export const ANSWER_DEADLINE_MS = 120_000;

export class AnswerTooLarge extends Error {
  constructor(readonly max: number) {
    super(`more than ${max >= 1024 * 1024 ? `${Math.round(max / 1024 / 1024)} MiB` : `${max} bytes`}`);
  }
}

/** The answer's text, refused past `max` bytes before it is all in memory (a declared length, or as it comes). */
export async function readCapped(res: Pick<Dispatcher.ResponseData, 'headers' | 'body'>, max: number): Promise<string> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    await res.body.dump({ limit: 0 }).catch(() => undefined);
    throw new AnswerTooLarge(max);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.length;
    if (size > max) throw new AnswerTooLarge(max);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** The whole time one answer may take (a server trickling a few bytes never trips undici's timeouts, between chunks), or until `outer` aborts. */
export function deadline(ms: number, outer?: AbortSignal): { signal: AbortSignal; expired: () => boolean } {
  const timer = AbortSignal.timeout(ms);
  return { signal: outer ? AbortSignal.any([outer, timer]) : timer, expired: () => timer.aborted };
}
