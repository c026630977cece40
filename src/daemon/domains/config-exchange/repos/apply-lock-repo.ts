import type { Knex } from 'knex';

/** An arbitrary constant naming configuration exchange's advisory lock (ASCII "cfx!"). */
const APPLY_LOCK_KEY = 0x63667821;

/** Serializes applies across every instance: the lock is held until the apply's transaction ends. */
export class ApplyLockRepo {
  async lock(trx: Knex.Transaction): Promise<void> {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [APPLY_LOCK_KEY]);
  }
}
