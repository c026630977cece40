import type { Knex } from 'knex';
import { RUN_COLUMNS, type RunRow } from '../runs/run-view.js';

/** Where a child run came from: the parent run, its `flow.run` step, and the parent's attempt. */
export interface ChildOrigin {
  readonly parentRunId: string;
  readonly parentStepId: string;
  readonly parentAttempt: number;
}

/** Child runs of `flow.run` steps: finding one already made, resolving a flow by name, linking a child to its parent. */
export class ChildRunsRepo {
  /** The child run made for this parent step in this parent attempt, if any. */
  find(trx: Knex.Transaction, origin: ChildOrigin): Promise<RunRow | undefined> {
    return trx('runs')
      .where({ parent_run_id: origin.parentRunId, parent_step_id: origin.parentStepId, parent_attempt: origin.parentAttempt })
      .first(RUN_COLUMNS);
  }

  /** The live flow of this name in the organization, else in the shared organization (names are unique among live flows of one). */
  async flowIdByName(trx: Knex.Transaction, orgId: string, name: string): Promise<string | undefined> {
    const result = await trx.raw<{ rows: { id: string }[] }>(
      `SELECT f.id FROM flows f
       WHERE f.name = ? AND f.deleted_at IS NULL
         AND (f.org_id = ? OR f.org_id = (SELECT o.id FROM organizations o WHERE o.is_shared AND o.is_active))
       ORDER BY (f.org_id = ?) DESC LIMIT 1`,
      [name, orgId, orgId],
    );
    return result.rows[0]?.id;
  }

  async link(trx: Knex.Transaction, childId: string, origin: ChildOrigin): Promise<void> {
    await trx('runs').where({ id: childId }).update({
      parent_run_id: origin.parentRunId,
      parent_step_id: origin.parentStepId,
      parent_attempt: origin.parentAttempt,
    });
  }
}
