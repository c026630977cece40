import type { Knex } from 'knex';

/** The locks a run holds, found when it ends (20261128180000) without reading every state: few are locked at a time. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX iac_states_lock_run_id ON iac_states (lock_run_id) WHERE lock_run_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS iac_states_lock_run_id');
}
