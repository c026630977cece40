import type { Knex } from 'knex';

/**
 * Key names a secret is declared to hold without the service holding their values yet: a configuration
 * bundle carries a secret's key names, never its values, so a secret it creates starts with declared
 * keys only (docs/config-exchange.md). The secret's exported keys are its stored keys and these.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE secrets ADD COLUMN declared_keys jsonb NOT NULL DEFAULT '[]'::jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE secrets DROP COLUMN declared_keys');
}
