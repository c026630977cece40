import type { Knex } from 'knex';

/**
 * The delivery journal: one row per processed trigger, never updated, never soft-deleted; removed only
 * with its endpoint (cascade) or by retention. It keeps the body's SHA-256, never the body.
 *
 * The idempotency key is unique per endpoint among ACCEPTED deliveries only (partial index): a sender
 * whose request was refused (say, a device not yet synced) can retry the same event with the same key,
 * while a retry of an accepted one is answered 409 with the original delivery.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('webhook_endpoint_id').notNullable().references('id').inTable('webhook_endpoints').onDelete('CASCADE');
    t.string('idempotency_key', 255);
    t.boolean('signature_valid').notNullable();
    t.string('source_ip', 45);
    t.string('request_body_hash', 64);
    t.integer('response_status').notNullable();
    t.text('error_detail');
    t.specificType('run_ids', 'uuid[]').notNullable().defaultTo(knex.raw("'{}'::uuid[]"));
    t.integer('processing_duration_ms');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['webhook_endpoint_id', 'created_at'], 'webhook_deliveries_endpoint_created');
    t.index(['created_at'], 'webhook_deliveries_created');
  });
  await knex.raw(
    'CREATE UNIQUE INDEX webhook_deliveries_idempotency ON webhook_deliveries (webhook_endpoint_id, idempotency_key) WHERE idempotency_key IS NOT NULL AND response_status = 202',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
}
