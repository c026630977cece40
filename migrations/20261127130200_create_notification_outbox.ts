import type { Knex } from 'knex';

/**
 * The outbox: one row per message to send (an event for one destination), written by database triggers in
 * the transaction of the change that causes it (migrations 20261127130400 and 20261127130500), so a crash
 * neither loses nor invents one. `dedupe_key` (`<event>:<subject id>:<destination id>`) makes an event
 * send once per destination whatever writes the change twice. Senders claim due rows with SKIP LOCKED
 * (`status` `sending` with a lease), send, and record the outcome: `delivered`, or back to `pending` with
 * `next_attempt_at` pushed out (transient failure), or `failed` (permanent, or out of attempts). The row's
 * id is the idempotency key receivers are sent, the same on every attempt.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notification_outbox', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('destination_id').notNullable().references('id').inTable('notification_destinations').onDelete('CASCADE').index();
    t.string('event', 40).notNullable();
    t.uuid('run_id');
    t.uuid('approval_id');
    t.uuid('flow_id');
    t.jsonb('payload_json').notNullable();
    t.text('dedupe_key').notNullable().unique();
    t.string('status', 16).notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('lease_expires_at', { useTz: true });
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.check(`status IN ('pending', 'sending', 'delivered', 'failed')`, [], 'notification_outbox_status_known');
    t.check('attempts >= 0', [], 'notification_outbox_attempts_not_negative');
  });
  // The senders' claim: due rows of the two open states, oldest first.
  await knex.raw(`CREATE INDEX notification_outbox_due ON notification_outbox (next_attempt_at) WHERE status IN ('pending', 'sending')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notification_outbox');
}
