import type { Knex } from 'knex';

/**
 * Devices of an organization. A device is live while `deleted_at` is null; run targets and webhook
 * references resolve only live devices. `provider_id`/`external_id` identify a provider-sourced device
 * (set by provider sync only); `overlay_json` holds local annotations beside the provider's data.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('devices', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').index();
    t.string('name', 255).notNullable();
    t.string('hostname', 255);
    t.string('platform', 100);
    t.string('role', 100);
    // Listing a site's devices, and SET NULL when a site is purged.
    t.uuid('site_id').references('id').inTable('sites').onDelete('SET NULL').index();
    t.string('serial', 255);
    t.jsonb('tags').notNullable().defaultTo(knex.raw(`'[]'::jsonb`));
    t.jsonb('attributes_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.jsonb('overlay_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.string('provider_id', 255);
    t.string('external_id', 255);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.timestamp('deleted_at', { useTz: true });
    t.string('deleted_by', 255);
    t.check(`jsonb_typeof(tags) = 'array'`, [], 'devices_tags_array');
    t.check(`jsonb_typeof(attributes_json) = 'object'`, [], 'devices_attributes_object');
    t.check(`jsonb_typeof(overlay_json) = 'object'`, [], 'devices_overlay_object');
  });
  await knex.raw('CREATE UNIQUE INDEX devices_org_name_live ON devices (org_id, name) WHERE deleted_at IS NULL');
  await knex.raw(
    'CREATE UNIQUE INDEX devices_org_provider_ref_live ON devices (org_id, provider_id, external_id) WHERE provider_id IS NOT NULL AND deleted_at IS NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('devices');
}
