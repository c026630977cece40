/**
 * Which errors mean "the database link failed" (the client may retry the same request later) as opposed
 * to "the database refused this statement" (a constraint, a syntax error: retrying changes nothing).
 * The one place that decides: the responder answers 503 `database_unavailable` for these, and run
 * admission does not retry a shared statement's items one by one for them.
 */

/** Node socket errors on the link to the server (and a name that does not resolve). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/**
 * SQLSTATEs of a server that cannot serve now, whatever the statement: 57P01 admin shutdown (a session
 * killed, a pooler's server restarting), 57P02 crash shutdown, 57P03 cannot connect now (starting up,
 * in recovery), 57014 query canceled (the statement timeout, or a cancel sent on our behalf), 53300 too
 * many connections, 25006 read-only transaction (a standby or a primary gone read-only), 08xxx the
 * connection exception class.
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '57014', '53300', '25006']);

/**
 * node-postgres reports a link that broke or timed out without a code, by these messages (pg 8): the
 * socket closed under a query, the connect timeout, the query timeout, and a client used after its
 * connection failed or closed.
 */
const PG_LINK_MESSAGES = [
  'Connection terminated',
  'Query read timeout',
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/** The database link failed (unreachable, reset, timed out, shut down, full, read-only): worth a retry later. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
  // knex's acquire timeout: no pooled connection became free, nor could one be made, in time.
  if (e.name === 'KnexTimeoutError') return true;
  if (typeof e.code === 'string' && (SOCKET_CODES.has(e.code) || SERVER_CODES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code))) return true;
  if (typeof e.message === 'string') {
    // knex puts the statement before pg's message: "<sql> - Connection terminated unexpectedly".
    const after = e.message.lastIndexOf(' - ');
    const own = after === -1 ? e.message : e.message.slice(after + 3);
    if (PG_LINK_MESSAGES.some((text) => own.startsWith(text))) return true;
  }
  return e.cause !== undefined && e.cause !== error && isDatabaseUnavailable(e.cause);
}

/**
 * SQLSTATEs of text the database cannot hold: 22021 (NUL in a text value, "invalid byte sequence") and
 * 22P05 (a `\u0000` escape in jsonb). A JavaScript string reaches a statement as valid UTF-8 except for
 * NUL, so these mean a request carried NUL into a field no schema checked.
 */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);

/** The database refused a statement for text it cannot store (NUL). */
export function isUnstorableText(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && UNSTORABLE_TEXT_CODES.has(e.code)) return true;
  return e.cause !== undefined && e.cause !== error && isUnstorableText(e.cause);
}
