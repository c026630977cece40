import type { Knex } from 'knex';

/**
 * Secret backends: platform-wide stores that hold secret values. `scheme` is the reference scheme
 * (`<scheme>://orgs/<org_slug>/secrets/<path>`); `config_json` holds connection settings only, never a
 * credential in clear (a credential there would be a secret reference). At most one row is the default.
 * The built-in backend (values encrypted in this database) is seeded as the default.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('secret_backends', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('name', 255).notNullable().unique();
    t.string('type', 32).notNullable();
    t.string('scheme', 64).notNullable().unique();
    t.jsonb('config_json').notNullable().defaultTo('{}');
    t.boolean('is_default').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.check(`type IN ('builtin', 'vault')`, [], 'secret_backends_type_known');
    t.check(`scheme ~ '^[a-z][a-z0-9+.-]{0,63}$'`, [], 'secret_backends_scheme_format');
  });
  await knex.raw('CREATE UNIQUE INDEX secret_backends_one_default ON secret_backends (is_default) WHERE is_default');
  await knex('secret_backends').insert({ name: 'Built-in', type: 'builtin', scheme: 'builtin', is_default: true, config_json: {} });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('secret_backends');
}
