import type { Knex } from 'knex';

/** When a provider sync last saw an imported site: a complete pass marks stale what it did not see. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sites', (t) => {
    t.timestamp('provider_seen_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sites', (t) => {
    t.dropColumn('provider_seen_at');
  });
}
