import type { Knex } from 'knex';

/** Tenants. `is_default` marks the platform default organization (auto-join target); at most one row has it. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('slug', 100).notNullable().unique();
    t.string('name', 255).notNullable();
    t.text('description');
    t.boolean('is_active').notNullable().defaultTo(true);
    t.boolean('is_default').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.jsonb('settings_json').notNullable().defaultTo('{}');
    t.check(`slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'`, [], 'organizations_slug_url_safe');
  });
  await knex.raw('CREATE UNIQUE INDEX organizations_one_default ON organizations (is_default) WHERE is_default');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('organizations');
}
