import type { Knex } from 'knex';

/**
 * One child run per (parent run, parent step, parent attempt): a retried `POST /internal/runs` answers
 * the child it made, and two racing retries cannot both make one. Partial: only child runs carry it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'CREATE UNIQUE INDEX runs_child_per_parent_step ON runs (parent_run_id, parent_step_id, parent_attempt) WHERE parent_run_id IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS runs_child_per_parent_step');
}
