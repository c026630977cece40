import type { Knex } from 'knex';

/**
 * When each chunk was written: the chunks of an upload its daemon died during have no artifact row, and
 * only their time tells them from those of an upload still arriving, so the artifacts sweep can remove
 * them once the newest is old enough. Chunks written before this column existed take its time of adding.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_artifact_chunks', (t) => {
    t.timestamp('written_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_artifact_chunks', (t) => {
    t.dropColumn('written_at');
  });
}
