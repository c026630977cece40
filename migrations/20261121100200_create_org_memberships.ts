import type { Knex } from 'knex';

/** One membership per user per organization; `source` tells sync which rows it owns (`idp`) and which it never touches (`manual`). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('org_memberships', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').index();
    t.string('role', 50).notNullable().defaultTo('viewer');
    t.enu('source', ['manual', 'idp']).notNullable().defaultTo('manual');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['user_id', 'org_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('org_memberships');
}
