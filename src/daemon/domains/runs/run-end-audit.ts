import type { Knex } from 'knex';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';

/** The spec's action of the worker's callbacks: the daemon's entries about a worker's run are recorded under it. */
export const RUN_CALLBACKS_ACTION = 'internal:run_callbacks';

/**
 * How a run ended, in `trx`: `run.finished` when it succeeded, `run.failed` when it failed, whether its
 * worker said so or the daemon decided it for it (`worker_lost`, `definition_unavailable`).
 */
export async function recordRunEnd(
  audit: AuditWriter,
  trx: Knex.Transaction,
  context: AuditContext | undefined,
  run: { readonly id: string; readonly org_id: string; readonly workflow_id: string },
  status: 'succeeded' | 'failed',
  error?: Readonly<Record<string, unknown>>,
): Promise<void> {
  await audit.record(
    context,
    {
      eventType: status === 'succeeded' ? 'run.finished' : 'run.failed',
      action: RUN_CALLBACKS_ACTION,
      resourceType: 'run',
      resourceId: run.id,
      outcome: 'success',
      orgId: run.org_id,
      details: { workflow_id: run.workflow_id, status, ...(error ? { error } : {}) },
    },
    trx,
  );
}
