/** What went wrong below HTTP, read once from undici's errors for every client sitesync has. */
import { errors as undiciErrors } from 'undici';

export type TransportFailure = 'aborted' | 'connect-timeout' | 'read-timeout' | 'refused' | 'dns' | 'lost' | 'other';

export function classifyTransportError(error: unknown): { failure: TransportFailure; code?: string } {
  if ((error as { name?: string }).name === 'AbortError') return { failure: 'aborted' };
  if (error instanceof undiciErrors.ConnectTimeoutError) return { failure: 'connect-timeout' };
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    return { failure: 'read-timeout' };
  }
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
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
    default:
      return { failure: 'other', code: code ?? (error as Error).message ?? 'network error' };
  }
}
