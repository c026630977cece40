import type { Knex } from 'knex';

/**
 * A flow draft's attachments (the playbooks, roles and configuration its container steps mount): a
 * normalised relative `path` unique within the flow, the content type sniffed at upload, and the blob
 * holding its bytes. Purging the flow removes them (cascade); their blobs stay while a version pins them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('flow_attachments', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('flow_id').notNullable().references('id').inTable('flows').onDelete('CASCADE');
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('path', 1280).notNullable();
    t.uuid('blob_id').notNullable().references('id').inTable('flow_attachment_blobs');
    t.string('content_type', 255).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.unique(['flow_id', 'path']);
    t.index(['blob_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('flow_attachments');
}
