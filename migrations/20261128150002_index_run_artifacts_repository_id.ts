import type { Knex } from 'knex';

/** A repository's deletion asks whether any artifact is kept in it: an index, not a scan of every artifact. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_artifacts', (t) => {
    t.index(['repository_id'], 'run_artifacts_repository_id_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_artifacts', (t) => {
    t.dropIndex(['repository_id'], 'run_artifacts_repository_id_index');
  });
}
