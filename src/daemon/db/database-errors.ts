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
 * SQLSTATEs of a value the database cannot take, which only a request can have brought, since the
 * daemon's own values fit its columns: 22021 (NUL in text, "invalid byte sequence") and 22P05 (a
 * `\u0000` escape in jsonb) are `nul`; 22001 (a string too long for its column), 22003 (a number out of
 * its type's range), 22007 and 22008 (a malformed or out-of-range time), 22009 (a UTC offset past 15:59)
 * and 22P02 (text that is no value of the type, a uuid say) are `value`.
 */
const UNSTORABLE_CODES: ReadonlyMap<string, UnstorableValue> = new Map([
  ['22021', 'nul'],
  ['22P05', 'nul'],
  ['22001', 'value'],
  ['22003', 'value'],
  ['22007', 'value'],
  ['22008', 'value'],
  ['22009', 'value'],
  ['22P02', 'value'],
]);

export type UnstorableValue = 'nul' | 'value';

/** Whether the database refused a statement for a value it cannot take (no schema checked it), and which kind. */
export function unstorableValue(error: unknown): UnstorableValue | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; cause?: unknown };
  const kind = typeof e.code === 'string' ? UNSTORABLE_CODES.get(e.code) : undefined;
  if (kind) return kind;
  return e.cause !== undefined && e.cause !== error ? unstorableValue(e.cause) : undefined;
}
