import type { Knex } from 'knex';

/** A profile's sync run (an apply or an export): who, when, under which correlation id, what it changed or why it failed. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('platform_sync_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('profile_id').notNullable().references('id').inTable('platform_sync_profiles').onDelete('CASCADE');
    t.uuid('plan_id').references('id').inTable('platform_sync_plans').onDelete('SET NULL');
    t.string('kind', 20).notNullable();
    t.string('status', 20).notNullable();
    t.uuid('correlation_id').notNullable();
    t.jsonb('counts').notNullable().defaultTo('{"created":0,"updated":0,"deleted":0}');
    t.uuid('authorization_id').references('id').inTable('platform_sync_authorizations').onDelete('SET NULL');
    t.jsonb('error');
    t.string('actor_sub', 255);
    t.string('actor_username', 255);
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.index(['profile_id', 'started_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('platform_sync_runs');
}
