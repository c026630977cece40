import type { Knex } from 'knex';

/**
 * A run's hold on a managed state (`iac.plan`'s `hold_until_apply`): from the plan step that asked for it
 * until a later step of the run writes the state (the apply) or the run ends, nobody but that run may lock,
 * write, import, roll back or delete the state. Apart from the lock, which Terraform takes and lets go
 * around each command.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('iac_states', (t) => {
    t.uuid('hold_run_id');
    t.string('hold_step_id', 255);
    t.timestamp('held_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('iac_states', (t) => {
    t.dropColumn('hold_run_id');
    t.dropColumn('hold_step_id');
    t.dropColumn('held_at');
  });
}
