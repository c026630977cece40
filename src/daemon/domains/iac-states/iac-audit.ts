import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { IacStateRow, IacTx } from './iac-states-repo.js';

/** One audit entry about a change of a state, in its transaction; `context` undefined for the daemon's own (no actor). */
export async function recordIacEvent(
  audit: AuditWriter,
  context: AuditContext | undefined,
  trx: IacTx,
  state: IacStateRow,
  event: { readonly eventType: string; readonly action: string; readonly details: Record<string, unknown> },
): Promise<void> {
  await audit.record(
    context,
    {
      eventType: event.eventType,
      action: event.action,
      outcome: 'success',
      resourceType: 'iac_state',
      resourceId: state.id,
      orgId: state.org_id,
      details: { name: state.name, ...event.details },
    },
    trx,
  );
}
