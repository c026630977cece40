import type { Knex } from 'knex';

/** Route-level policy overrides: one row per overridden method + route pattern. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('permission_overrides', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('method', 10).notNullable();
    t.string('path', 500).notNullable();
    t.string('policy', 50).notNullable();
    t.string('updated_by_sub', 255);
    t.string('updated_by_username', 255);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['method', 'path']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('permission_overrides');
}
