import type { Knex } from 'knex';

/**
 * A saved plan of a profile: the source bundle it read (so apply runs exactly what was planned), the
 * engine's plan and fingerprint of the rows it read, the profile revision it was made at, each change's
 * stable `change_id` with whether it conflicts or destroys, and the hash of every item the source holds
 * (what an apply records as applied, for drift).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('platform_sync_plans', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('profile_id').notNullable().references('id').inTable('platform_sync_profiles').onDelete('CASCADE');
    t.integer('profile_revision').notNullable();
    t.string('fingerprint', 128).notNullable();
    t.string('source_sha256', 64).notNullable();
    t.text('bundle').notNullable();
    t.boolean('prune').notNullable();
    t.jsonb('summary').notNullable();
    t.jsonb('engine_plan').notNullable();
    t.jsonb('changes').notNullable();
    t.jsonb('desired_hashes').notNullable();
    t.timestamp('applied_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.index(['profile_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('platform_sync_plans');
}
