import type { Knex } from 'knex';

/**
 * A conflict's resolution: for a change (by its stable `change_id`, which names both sides' versions of
 * the item) the operator chose the source's version or kept the target's.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('platform_sync_resolutions', (t) => {
    t.uuid('profile_id').notNullable().references('id').inTable('platform_sync_profiles').onDelete('CASCADE');
    t.string('change_id', 64).notNullable();
    t.string('resolution', 20).notNullable();
    t.timestamp('resolved_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('resolved_by', 255);
    t.primary(['profile_id', 'change_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('platform_sync_resolutions');
}
