import type { Knex } from 'knex';

/**
 * An organization's login to one upstream registry its pull-through cache copies from
 * (`orgs/<slug>/<registry>/…`): the password only as a secret reference, never a value. One per
 * (organization, registry), so the cache finds the login of a host without choosing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('registry_credentials', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('registry', 255).notNullable();
    t.string('url', 2048).notNullable();
    t.string('username', 255).notNullable();
    t.string('password_ref', 1024).notNullable();
    t.text('description');
    t.timestamp('last_tested_at', { useTz: true });
    t.boolean('last_test_ok');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.unique(['org_id', 'registry']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('registry_credentials');
}
