import type { Knex } from 'knex';

/**
 * Schedules: a flow (optionally a pinned committed version) run on a cron expression in an IANA time zone
 * with fixed params and targets. `next_fire_at` is the fence of a fire: the fire that advances it from the
 * due time it read is the only one whose run is written (schedule_fires' unique pair gates it). The flow
 * may go (purged: `flow_id` null); its fires then fail with their reason and the schedule keeps going.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('schedules', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').index();
    t.uuid('flow_id').references('id').inTable('flows').onDelete('SET NULL').index();
    t.integer('flow_version');
    t.string('name', 255).notNullable();
    t.text('description');
    t.string('cron', 255).notNullable();
    t.string('timezone', 64).notNullable().defaultTo('UTC');
    t.jsonb('params_json').notNullable().defaultTo('{}');
    t.jsonb('targets_json').notNullable().defaultTo('{}');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.string('misfire_policy', 8).notNullable().defaultTo('last');
    t.timestamp('next_fire_at', { useTz: true });
    t.timestamp('last_fired_at', { useTz: true });
    t.uuid('last_run_id').references('id').inTable('runs').onDelete('SET NULL');
    t.jsonb('last_fire_error_json');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.timestamp('deleted_at', { useTz: true });
    t.string('deleted_by', 255);
    t.check("misfire_policy IN ('last', 'none', 'all')", [], 'schedules_misfire_policy_known');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('schedules');
}
