import type { Knex } from 'knex';

/** A child run started by a parent run's `flow.run` step has the trigger source `flow`. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE runs DROP CONSTRAINT runs_trigger_source_known');
  await knex.raw(
    `ALTER TABLE runs ADD CONSTRAINT runs_trigger_source_known CHECK (trigger_source IN ('manual', 'schedule', 'webhook', 'flow'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE runs DROP CONSTRAINT runs_trigger_source_known');
  await knex.raw(`ALTER TABLE runs ADD CONSTRAINT runs_trigger_source_known CHECK (trigger_source IN ('manual', 'schedule', 'webhook'))`);
}
