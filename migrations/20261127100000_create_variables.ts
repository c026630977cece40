import type { Knex } from 'knex';

/**
 * Variables: typed, named values of an organization that step configurations reference by template
 * (`{{ variables.<name> }}`). `value_json` holds the value as JSON; a `secret_ref` variable holds a secret
 * reference (text), never a secret's value. Names are unique among an organization's live rows (next
 * migration); soft-deleted rows keep theirs until restored or purged.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('variables', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').index();
    t.string('name', 128).notNullable();
    t.text('description');
    t.string('type', 16).notNullable();
    t.jsonb('value_json').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.timestamp('deleted_at', { useTz: true });
    t.string('deleted_by', 255);
    t.check("type IN ('string', 'number', 'boolean', 'json', 'secret_ref')", [], 'variables_type_known');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('variables');
}
