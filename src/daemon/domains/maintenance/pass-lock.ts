import type { Knex } from 'knex';
import type { Database } from '../../db/database.js';

/** The maintenance pass's advisory lock key (any 64-bit constant no other lock uses). */
export const MAINTENANCE_LOCK_KEY = 7_146_119_002;

/** Runs a timer's pass only while no other instance runs one. */
export interface PassLock {
  /** Runs `work` holding the lock and answers `{ran: true, value}`; `{ran: false}` at once when another instance holds it. */
  tryRun<T>(work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
}

/** What knex marks on a pg connection it must not hand out again (its pool destroys it). */
interface PgConnection {
  __knex__disposed?: unknown;
}

/**
 * PostgreSQL: a session advisory lock, held on one pooled connection set aside for the whole pass while
 * the jobs run their short transactions on the others. A transaction-scoped lock would keep a transaction
 * open as long as the pass, which the idle-in-transaction timeout ends. If the lock cannot be released
 * (the link broke mid-pass: the server has already dropped it with the session) the connection is marked
 * for knex to destroy rather than go back to the pool still holding the lock.
 */
export function advisoryPassLock(knex: Knex): PassLock {
  return {
    async tryRun(work) {
      const connection = (await knex.client.acquireConnection()) as PgConnection;
      try {
        const taken = await knex
          .raw<{ rows: { locked: boolean }[] }>('SELECT pg_try_advisory_lock(?::bigint) AS locked', [MAINTENANCE_LOCK_KEY])
          .connection(connection);
        if (taken.rows[0]?.locked !== true) return { ran: false };
        try {
          return { ran: true, value: await work() };
        } finally {
          const released = await knex
            .raw<{ rows: { unlocked: boolean }[] }>('SELECT pg_advisory_unlock(?::bigint) AS unlocked', [MAINTENANCE_LOCK_KEY])
            .connection(connection)
            .catch(() => undefined);
          if (released?.rows[0]?.unlocked !== true) connection.__knex__disposed ??= 'maintenance lock not released';
        }
      } finally {
        await knex.client.releaseConnection(connection);
      }
    },
  };
}

/**
 * PGlite: one process owns the database and its one connection, so there is no other instance to keep
 * out, and setting that connection aside for the pass would leave none for the jobs. This instance's
 * timer never overlaps itself (the next pass is scheduled when one ends).
 */
export const inProcessPassLock: PassLock = {
  async tryRun(work) {
    return { ran: true, value: await work() };
  },
};

export function passLockFor(db: Database): PassLock {
  return db.kind === 'postgres' ? advisoryPassLock(db.knex) : inProcessPassLock;
}
