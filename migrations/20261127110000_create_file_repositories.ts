import type { Knex } from 'knex';

/**
 * Where an organization's files are kept: `local` (a directory under the daemon's data directory) or `s3`
 * (a bucket of any S3-compatible store; `config_json` holds endpoint, region, bucket, prefix and the
 * secret references of its credentials, never their values). One repository per organization is its default.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('file_repositories', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('description', 1000);
    t.string('kind', 16).notNullable();
    t.jsonb('config_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.boolean('is_default').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.unique(['org_id', 'name']);
    t.check(`kind IN ('local', 's3')`, [], 'file_repositories_kind_known');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('file_repositories');
}
