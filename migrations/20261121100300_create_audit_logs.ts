import type { Knex } from 'knex';

/**
 * The audit trail. Entries outlive their organization (`SET NULL`), so deleting a tenant never erases
 * the record of what was done in it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_logs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').references('id').inTable('organizations').onDelete('SET NULL');
    t.timestamp('ts', { useTz: true }).notNullable().defaultTo(knex.fn.now()).index();
    t.string('event_type', 100).notNullable().index();
    t.string('actor_sub', 255).index();
    t.string('actor_username', 255);
    t.string('resource_type', 100);
    t.string('resource_id', 255);
    t.string('action', 100);
    t.string('outcome', 50);
    t.jsonb('details_json').notNullable().defaultTo('{}');
    t.string('client_ip', 45);
    t.text('user_agent');
    t.index(['org_id', 'ts']);
    t.index(['resource_type', 'resource_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_logs');
}
