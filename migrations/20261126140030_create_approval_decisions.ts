import type { Knex } from 'knex';

/**
 * Each person's decision on an approval, once (`UNIQUE (approval_id, user_id)`): `user_id` is the
 * caller's subject, as `runs.created_by` holds the starter's, so the two compare directly.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('approval_decisions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('approval_id').notNullable().references('id').inTable('approvals').onDelete('CASCADE');
    t.string('user_id', 255).notNullable();
    t.string('user_name', 255);
    t.string('decision', 10).notNullable();
    t.text('comment');
    t.timestamp('decided_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['approval_id', 'user_id']);
    t.check(`decision IN ('approve', 'reject')`, [], 'approval_decisions_decision_known');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('approval_decisions');
}
