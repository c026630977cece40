import type { Knex } from 'knex';

/**
 * The bytes of artifacts kept in the database (SERVICE_ARTIFACT_STORE `database`): 1 MiB per row, in
 * order. Chunks are written before their artifact's row exists (the row is the commit), so they name
 * their run rather than the artifact: a purged run takes them with it, finished or not. Stored out of line
 * uncompressed (STORAGE EXTERNAL).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('run_artifact_chunks', (t) => {
    t.uuid('artifact_id').notNullable();
    t.integer('seq').notNullable();
    t.uuid('run_id').notNullable().references('id').inTable('runs').onDelete('CASCADE');
    t.binary('data').notNullable();
    t.primary(['artifact_id', 'seq']);
    t.index(['run_id'], 'run_artifact_chunks_run_id');
  });
  // Artifacts are mostly compressed already (archives, images): storing out of line without trying pglz
  // on every megabyte makes writes markedly faster.
  await knex.raw('ALTER TABLE run_artifact_chunks ALTER COLUMN data SET STORAGE EXTERNAL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('run_artifact_chunks');
}
