import type { Knex } from 'knex';
import { expect } from 'vitest';

/** Whether a session of this database waits for a lock in a statement naming `table`. */
async function someoneWaits(knex: Knex, table: string): Promise<boolean> {
  const waiting = await knex.raw(
    "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND strpos(query, ?) > 0",
    [table],
  );
  return waiting.rows.length > 0;
}

/**
 * A change committed while a request waits for the row it changes (PostgreSQL only: PGlite has one
 * session). A transaction of the test locks `table`'s row `id`; `request` is sent; once it waits for the
 * row, `meanwhile` changes the row in that transaction, which commits. Answers what the request answered.
 */
export async function behindRowLock<T>(
  knex: Knex,
  table: string,
  id: string,
  request: () => Promise<T>,
  meanwhile: (trx: Knex.Transaction) => Promise<unknown>,
): Promise<T> {
  const holder = await knex.transaction();
  try {
    await holder(table).where({ id }).forUpdate().first('id');
    const answer = request();
    for (let tries = 0; tries < 200 && !(await someoneWaits(knex, table)); tries += 1) await new Promise((r) => setTimeout(r, 25));
    expect(await someoneWaits(knex, table)).toBe(true);
    await meanwhile(holder);
    await holder.commit();
    return await answer;
  } finally {
    if (!holder.isCompleted()) await holder.rollback();
  }
}
