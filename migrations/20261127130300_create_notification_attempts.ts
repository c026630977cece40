import type { Knex } from 'knex';

/**
 * Every attempt to send an outbox message, whatever its outcome: `delivered`, `transient` (retried later)
 * or `permanent` (given up); the receiver's status code or SMTP reply code, why it failed (`reason`: an
 * outbound refusal such as `address_not_allowed`, `http_status`, `smtp_reply`, `secret_reference`...), and
 * which instance sent it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notification_attempts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('outbox_id').notNullable().references('id').inTable('notification_outbox').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.string('instance', 255).notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('finished_at', { useTz: true }).notNullable();
    t.string('outcome', 16).notNullable();
    t.integer('status_code');
    t.string('reason', 64);
    t.text('detail');
    t.unique(['outbox_id', 'attempt']);
    t.check(`outcome IN ('delivered', 'transient', 'permanent')`, [], 'notification_attempts_outcome_known');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notification_attempts');
}
