import type { Knex } from 'knex';

/**
 * Runs: one admitted execution of a committed flow version in an organization. The flow's name and
 * version are snapshots, so a run keeps its meaning after the flow is renamed or purged (`flow_id` then
 * becomes null). `workflow_id` is the engine's handle for the run, unique across organizations.
 * `paused_at` records the pause, and `started_at` whether a worker ever took the run (resume goes back
 * to `running` or `queued` by it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('flow_id').references('id').inTable('flows').onDelete('SET NULL').index();
    t.integer('flow_version').notNullable();
    t.string('flow_name', 255).notNullable();
    t.string('name', 255).notNullable();
    t.string('status', 20).notNullable().defaultTo('queued');
    t.jsonb('params_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.jsonb('targets_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.string('trigger_source', 20).notNullable();
    t.jsonb('trigger_details_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.string('workflow_id', 255).notNullable().unique();
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('paused_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.timestamp('cancelled_at', { useTz: true });
    t.string('cancelled_by', 255);
    t.timestamp('deleted_at', { useTz: true });
    t.string('deleted_by', 255);
    t.check(`status IN ('queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled')`, [], 'runs_status_known');
    t.check(`trigger_source IN ('manual', 'schedule', 'webhook')`, [], 'runs_trigger_source_known');
    t.check('flow_version >= 1', [], 'runs_flow_version_positive');
    t.check(`jsonb_typeof(params_json) = 'object'`, [], 'runs_params_object');
    t.check(`jsonb_typeof(targets_json) = 'object'`, [], 'runs_targets_object');
  });
  // The list: newest first within an organization, with the id breaking ties for stable pages.
  await knex.raw('CREATE INDEX runs_org_created ON runs (org_id, created_at DESC, id DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('runs');
}
