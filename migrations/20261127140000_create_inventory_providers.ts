import type { Knex } from 'knex';

/**
 * Inventory providers of an organization (NetBox, Nautobot, a static YAML document). `provider_id` is the
 * spec's `<type>:<name>` (default organization) or `<type>:<name>:<org_id>`: what imported sites, devices
 * and objects carry. `config_json` holds no secret: a credential is a secret reference (`credential_ref`).
 * `sync_watermark` is the newest `last_updated` a complete sync saw (the next incremental sync's start).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('inventory_providers', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').index();
    t.string('type', 32).notNullable();
    t.string('name', 63).notNullable();
    t.string('provider_id', 255).notNullable();
    t.text('description');
    t.jsonb('config_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.string('credential_ref', 2048);
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamp('sync_watermark', { useTz: true });
    t.uuid('last_sync_id');
    t.string('last_sync_status', 16);
    t.timestamp('last_sync_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.timestamp('deleted_at', { useTz: true });
    t.string('deleted_by', 255);
    t.check(`jsonb_typeof(config_json) = 'object'`, [], 'inventory_providers_config_object');
  });
  await knex.raw('CREATE UNIQUE INDEX inventory_providers_provider_id_live ON inventory_providers (provider_id) WHERE deleted_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('inventory_providers');
}
