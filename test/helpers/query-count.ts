import type { Knex } from 'knex';

/** Runs `work` and answers how many of the queries `knex` sent meanwhile `counts` (by their SQL text). */
export async function queriesCounted(knex: Knex, counts: (sql: string) => boolean, work: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const listener = (query: { sql: string }) => {
    if (counts(query.sql)) count += 1;
  };
  knex.on('query', listener);
  try {
    await work();
  } finally {
    knex.off('query', listener);
  }
  return count;
}
