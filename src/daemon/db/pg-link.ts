import type { Knex } from 'knex';

/** The limits that make a failed link answer in time (settings SERVICE_DATABASE_*; docs/decisions.md). */
export interface LinkLimits {
  readonly databaseConnectTimeoutMs: number;
  /** The pool's size. */
  readonly databasePoolMax: number;
  readonly databaseAcquireTimeoutMs: number;
  /** 0: none. */
  readonly databaseQueryTimeoutMs: number;
  /** 0: the server's own. */
  readonly databaseStatementTimeoutMs: number;
  /** 0: the server's own. */
  readonly databaseIdleInTransactionTimeoutMs: number;
  readonly databaseKeepaliveDelayMs: number;
}

/**
 * node-postgres's connection settings for these limits. `statements: false` leaves out the two limits
 * on a statement's duration (client and server side), for migrations, whose statements may rightly run
 * for minutes.
 */
export function pgConnection(url: string, limits: LinkLimits, statements = true): Knex.PgConnectionConfig & Record<string, unknown> {
  return {
    connectionString: url,
    connectionTimeoutMillis: limits.databaseConnectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: limits.databaseKeepaliveDelayMs,
    // pg sends these as start-up parameters, so they hold from the session's first statement; 0 sends nothing.
    idle_in_transaction_session_timeout: statements ? limits.databaseIdleInTransactionTimeoutMs : 0,
    statement_timeout: statements ? limits.databaseStatementTimeoutMs : 0,
    query_timeout: statements ? limits.databaseQueryTimeoutMs : 0,
  };
}

interface PgClient {
  query: (...args: unknown[]) => unknown;
  end(): Promise<void>;
  /** knex's mark of a connection its pool must destroy instead of handing out again. */
  __knex__disposed?: unknown;
}

const QUERY_TIMEOUT = 'Query read timeout';

/**
 * After pg's client-side query timeout the client still waits for that statement's answer, and every
 * later statement queues behind it: a partitioned link would hold the pooled connection (and the next
 * request given it) until the link returned. Such a client is closed (pg destroys the socket of a client
 * with a statement in flight) and marked for knex's pool, which then replaces it. For knex's callback
 * form and the promise form (`queryPrepared`) alike.
 */
export function discardAfterQueryTimeout(client: PgClient): void {
  const query = client.query.bind(client);
  const discardOn = (error: unknown) => {
    if (error instanceof Error && error.message === QUERY_TIMEOUT && client.__knex__disposed === undefined) {
      client.__knex__disposed = error;
      void client.end();
    }
  };
  client.query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, result: unknown) => {
        if (error) discardOn(error);
        (callback as (error: unknown, result: unknown) => void)(error, result);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        discardOn(error);
        throw error;
      });
    }
    return result;
  };
}
