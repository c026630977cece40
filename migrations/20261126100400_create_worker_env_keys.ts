import type { Knex } from 'knex';

/**
 * The public key a worker registers (`POST /internal/runtime/env-keys`) so that values handed to it for
 * a step's environment can be sealed to that worker alone; removed when the worker leaves (`DELETE`)
 * or replaced by its next registration.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('worker_env_keys', (t) => {
    t.string('worker_id', 255).primary();
    t.string('algorithm', 32).notNullable();
    t.jsonb('public_key_jwk').notNullable();
    t.string('key_id', 128).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true });
    t.check(`jsonb_typeof(public_key_jwk) = 'object'`, [], 'worker_env_keys_jwk_object');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('worker_env_keys');
}
