import type { Knex } from 'knex';

/** Group claim values that grant a role in an organization at login. (claim, value, organization) is unique. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('org_idp_mappings', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('claim', 255).notNullable();
    t.string('value', 1024).notNullable();
    t.string('role', 50).notNullable();
    t.boolean('is_active').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['org_id', 'claim', 'value']);
    // Login-time sync looks mappings up by the claim values a token carries, across organizations.
    t.index(['claim', 'value']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('org_idp_mappings');
}
