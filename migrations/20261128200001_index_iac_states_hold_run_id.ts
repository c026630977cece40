import type { Knex } from 'knex';

/** The holds a run has, found when one of its steps or the run ends: few states are held at a time. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX iac_states_hold_run_id ON iac_states (hold_run_id) WHERE hold_run_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS iac_states_hold_run_id');
}
