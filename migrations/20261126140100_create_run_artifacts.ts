import type { Knex } from 'knex';

/**
 * A file a worker kept from a run (a report, a config backup): its name (unique in the run), the step
 * that made it, its content type, size and SHA-256, and which store holds its bytes (`file` under the
 * data directory, `database` in run_artifact_chunks). A row exists only once every byte is stored; it
 * goes with its run (purge).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('run_artifacts', (t) => {
    t.uuid('id').primary();
    t.uuid('run_id').notNullable().references('id').inTable('runs').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('step_id', 64);
    t.string('content_type', 255).notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.string('sha256', 64).notNullable();
    t.string('storage', 16).notNullable();
    t.integer('attempt').notNullable();
    t.string('worker_id', 255).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['run_id', 'name']);
    t.check(`storage IN ('file', 'database')`, [], 'run_artifacts_storage_known');
    t.check('size_bytes >= 0', [], 'run_artifacts_size_positive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('run_artifacts');
}
