import type { Knex } from 'knex';

/**
 * One approval per gated step of a run (`UNIQUE (run_id, step_id)`: a retried request answers the one
 * there). The gate's fields are copied from the run's committed definition when the worker asks, so the
 * approval decides by the rules it was opened with. `requested_by_worker` / `requested_attempt` fence the
 * worker's PATCH and recognise its retry. The run's starter is read from the run (`runs.created_by`).
 * A purged run takes its approvals with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('approvals', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('run_id').notNullable().references('id').inTable('runs').onDelete('CASCADE');
    t.uuid('org_id').notNullable();
    t.string('step_id', 64).notNullable();
    t.string('status', 20).notNullable().defaultTo('pending');
    t.text('message');
    t.jsonb('details_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.integer('required_approvals').notNullable().defaultTo(1);
    t.string('approver_role', 100);
    t.boolean('allow_starter').notNullable().defaultTo(false);
    t.integer('timeout_seconds').notNullable().defaultTo(0);
    t.string('timeout_action', 10).notNullable().defaultTo('reject');
    t.string('timeout_outcome', 10);
    t.string('requested_by_worker', 255).notNullable();
    t.integer('requested_attempt').notNullable();
    t.timestamp('requested_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('resolved_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['run_id', 'step_id']);
    t.index(['org_id', 'status', 'requested_at'], 'approvals_org_status');
    t.check(`status IN ('pending', 'approved', 'rejected', 'expired', 'cancelled')`, [], 'approvals_status_known');
    t.check(`timeout_action IN ('reject', 'approve')`, [], 'approvals_timeout_action_known');
    t.check(`timeout_outcome IS NULL OR timeout_outcome IN ('approved', 'rejected')`, [], 'approvals_timeout_outcome_known');
    t.check('required_approvals BETWEEN 1 AND 10', [], 'approvals_required_range');
    t.check(`jsonb_typeof(details_json) = 'object'`, [], 'approvals_details_object');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('approvals');
}
