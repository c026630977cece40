import { problem } from '../../../shared/api/problem.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { FlowCaller, FlowsModule } from '../flows/module.js';
import type { AttachmentsTx } from './attachments-repo.js';

export const MANAGE = 'flow_attachment:manage';

/**
 * Attachments live under a flow and follow its tenancy (the flows domain's access): a flow of another
 * organization is 404, the shared organization's is read here and written only there (403
 * `shared_read_only`). A write checks before its bytes are stored, then again with the flow row locked,
 * so it queues with the flow's commits: a commit pins either the set before the write or the set after.
 */
export class FlowGate {
  constructor(
    private readonly access: FlowsModule['access'],
    private readonly audit: AuditWriter,
  ) {}

  readable(caller: FlowCaller, flowId: string) {
    return this.access.readable(caller, flowId);
  }

  async writable(caller: FlowCaller, flowId: string) {
    const flow = await this.access.readable(caller, flowId);
    if (flow.org_id !== caller.org.id) {
      throw problem('shared_read_only', 'This flow belongs to the shared organization: its attachments are changed there.');
    }
    return flow;
  }

  /** Call before the transaction opens (the embedded database has one connection). */
  orgIds(caller: FlowCaller) {
    return this.access.readableOrgIds(caller);
  }

  lock(trx: AttachmentsTx, orgIds: readonly string[], caller: FlowCaller, flowId: string) {
    return this.access.lockWritable(trx, orgIds, caller, flowId);
  }

  async record(
    trx: AttachmentsTx,
    context: AuditContext | undefined,
    event: { eventType: string; orgId: string; resourceType?: string; resourceId: string; details: Record<string, unknown> },
  ): Promise<void> {
    await this.audit.record(
      context,
      {
        eventType: event.eventType,
        action: MANAGE,
        resourceType: event.resourceType ?? 'flow_attachment',
        resourceId: event.resourceId,
        orgId: event.orgId,
        details: event.details,
      },
      trx,
    );
  }
}
