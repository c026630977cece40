import type { Knex } from 'knex';

/**
 * What the last successful apply of a profile left, item by item: the hash of each item the source held,
 * by family and natural key. An item whose current hash differs has drifted locally since.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('platform_sync_applied_items', (t) => {
    t.uuid('profile_id').notNullable().references('id').inTable('platform_sync_profiles').onDelete('CASCADE');
    t.string('family', 100).notNullable();
    t.string('item_key', 1024).notNullable();
    t.string('sha256', 64).notNullable();
    t.uuid('run_id').notNullable().references('id').inTable('platform_sync_runs').onDelete('CASCADE');
    t.primary(['profile_id', 'family', 'item_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('platform_sync_applied_items');
}
