import type { Knex } from 'knex';

/** `run_tokens.run_id` gets the foreign key its table promised: a purged run takes its tokens with it. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_tokens', (t) => {
    t.foreign('run_id').references('id').inTable('runs').onDelete('CASCADE');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_tokens', (t) => {
    t.dropForeign(['run_id']);
  });
}
