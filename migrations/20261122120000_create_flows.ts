import type { Knex } from 'knex';

/**
 * Flows: an editable draft (`draft_json`, a FlowDefinition) and a counter of committed versions
 * (`latest_version`, 0 = never committed; the versions live in `flow_versions`). `draft_dirty` says the
 * draft differs from the newest version, so lists need no join. Names are unique among live flows of an
 * organization; a soft-deleted flow keeps its name until restored.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('flows', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').index();
    t.string('name', 255).notNullable();
    t.text('description');
    t.jsonb('draft_json').notNullable();
    t.boolean('draft_dirty').notNullable().defaultTo(true);
    t.integer('latest_version').notNullable().defaultTo(0);
    t.boolean('is_pinned').notNullable().defaultTo(false);
    t.boolean('manual_runs_enabled').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.timestamp('deleted_at', { useTz: true });
    t.string('deleted_by', 255);
    t.check('latest_version >= 0', [], 'flows_latest_version_not_negative');
    t.check(`jsonb_typeof(draft_json) = 'object'`, [], 'flows_draft_object');
  });
  await knex.raw('CREATE UNIQUE INDEX flows_org_name_live ON flows (org_id, name) WHERE deleted_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('flows');
}
