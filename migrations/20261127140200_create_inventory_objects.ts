import type { Knex } from 'knex';

/**
 * Inventory objects a provider imports beside sites and devices (VLANs, prefixes, IP addresses, ...):
 * read-only here, one row per (organization, provider, type, external id). A stale object (gone from
 * its provider) is soft-deleted by the sync and restored if it comes back.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('inventory_objects', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('provider_id', 255).notNullable();
    t.string('object_type', 64).notNullable();
    t.string('external_id', 255).notNullable();
    t.string('name', 255).notNullable();
    t.jsonb('data_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.timestamp('provider_updated_at', { useTz: true });
    t.timestamp('provider_seen_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
    t.string('deleted_by', 255);
    t.unique(['org_id', 'provider_id', 'object_type', 'external_id'], { indexName: 'inventory_objects_ref' });
    t.index(['org_id', 'object_type', 'name'], 'inventory_objects_org_type_name');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('inventory_objects');
}
