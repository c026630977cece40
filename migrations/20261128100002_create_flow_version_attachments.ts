import type { Knex } from 'knex';

/**
 * What a committed flow version pins: the draft's attachments as they were at the commit, path by path,
 * each naming its blob. Rows rather than a JSON manifest on `flow_versions`, so that the reference to a
 * blob is a foreign key: a pinned blob cannot be removed, and the sweep finds unreferenced blobs by query.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('flow_version_attachments', (t) => {
    t.uuid('flow_version_id').notNullable().references('id').inTable('flow_versions').onDelete('CASCADE');
    t.string('path', 1280).notNullable();
    t.uuid('blob_id').notNullable().references('id').inTable('flow_attachment_blobs');
    t.string('content_type', 255).notNullable();
    t.primary(['flow_version_id', 'path']);
    t.index(['blob_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('flow_version_attachments');
}
