import type { Knex } from 'knex';

/**
 * The attempt of the run a run token was minted in: a token dies with its attempt, so a run that was
 * requeued (its worker lost) leaves the old worker's tokens unusable. Existing rows (none are minted
 * before this) take attempt 1.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_tokens', (t) => {
    t.integer('attempt').notNullable().defaultTo(1);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_tokens', (t) => {
    t.dropColumn('attempt');
  });
}
