import type { Knex } from 'knex';

/**
 * Committed versions of a flow, numbered from 1 per flow. A row is never updated: runs pin the
 * version they were admitted with and read its `definition_json`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('flow_versions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('flow_id').notNullable().references('id').inTable('flows').onDelete('CASCADE');
    t.integer('version').notNullable();
    t.jsonb('definition_json').notNullable();
    t.text('message');
    t.string('committed_by', 255);
    t.timestamp('committed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // The unique index also serves "versions of a flow, newest first".
    t.unique(['flow_id', 'version']);
    t.check('version >= 1', [], 'flow_versions_version_positive');
    t.check(`jsonb_typeof(definition_json) = 'object'`, [], 'flow_versions_definition_object');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('flow_versions');
}
