import type { Knex } from 'knex';

/**
 * A platform sync profile: where a configuration comes from (an inline bundle, a file of the file
 * repositories, or another installation reached with an API token held as a secret reference), the scope it
 * lands in (one organization, or the platform when `target_org_id` is null), its families and whether it
 * prunes. `revision` grows with every change, so a plan made before a change is known stale.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('platform_sync_profiles', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('name', 100).notNullable().unique();
    t.text('description');
    t.string('source_kind', 20).notNullable();
    t.text('source_bundle');
    t.uuid('source_file_id');
    t.string('source_base_url', 2048);
    t.string('source_token_ref', 1024);
    t.string('source_org', 100);
    t.uuid('target_org_id').references('id').inTable('organizations').onDelete('CASCADE');
    t.jsonb('families').notNullable().defaultTo('[]');
    t.boolean('prune').notNullable().defaultTo(false);
    t.integer('revision').notNullable().defaultTo(1);
    t.timestamp('last_applied_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('platform_sync_profiles');
}
