import type { Knex } from 'knex';

/**
 * Sites of an organization, optionally nested under a parent site. Soft-deleted rows keep their name
 * out of the uniqueness check so a deleted site's name can be reused; a restore then has to check again.
 * `provider_id`/`external_id` are set by provider sync only.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sites', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').index();
    t.string('name', 255).notNullable();
    t.text('description');
    t.uuid('parent_id').references('id').inTable('sites').onDelete('SET NULL').index();
    t.text('address');
    t.jsonb('tags').notNullable().defaultTo(knex.raw(`'[]'::jsonb`));
    t.string('provider_id', 255);
    t.string('external_id', 255);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.timestamp('deleted_at', { useTz: true });
    t.string('deleted_by', 255);
    t.check(`jsonb_typeof(tags) = 'array'`, [], 'sites_tags_array');
    t.check('parent_id IS NULL OR parent_id <> id', [], 'sites_not_own_parent');
  });
  await knex.raw('CREATE UNIQUE INDEX sites_org_name_live ON sites (org_id, name) WHERE deleted_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sites');
}
