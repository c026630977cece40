import { CliError } from '../errors.js';

/** The error codes undici and Node put on `fetch failed`'s cause, as a user would name them. */
function describeCause(cause: unknown): string | undefined {
  const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return typeof message === 'string' && message !== '' ? message : undefined;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return 'timed out';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code))
    return `certificate not accepted (${typeof message === 'string' ? message : code})`;
  return typeof message === 'string' ? `${message} (${code})` : code;
}

/**
 * A request that got no answer, as an error naming the URL and why (`connection refused`, `timed out`,
 * `certificate …`, `host not found`) instead of undici's bare `fetch failed`.
 */
export function unreachable(url: URL | string, err: unknown): CliError {
  // undici wraps the socket's error once (`fetch failed`), sometimes twice (an AggregateError of addresses).
  const cause = (err as { cause?: unknown }).cause;
  const inner = (cause as { errors?: unknown[] } | undefined)?.errors?.[0] ?? cause;
  const why = describeCause(cause) ?? describeCause(inner) ?? (err as Error).message;
  return new CliError('error', `cannot reach ${String(url)}: ${why}`, { cause: err });
}
