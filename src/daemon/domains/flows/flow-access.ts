import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { restrictedChanges } from '../../../shared/flows/narrowing.js';
import { sameJson } from '../../../shared/flows/same-json.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import { Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { FlowRow, FlowsRepo, FlowsTx } from './flows-repo.js';

/** Who acts, where: the active organization, the subject recorded in `*_by`, and whether narrowing applies. */
export interface FlowCaller {
  readonly org: { readonly id: string; readonly slug: string };
  readonly sub: string | null;
  /** Realm role `admin`: passes handler-level narrowing. */
  readonly platformAdmin: boolean;
  readonly audit: AuditContext | undefined;
}

/** Which flows a write may address: live ones (most writes), deleted ones too (restore, purge). */
export type DeletedFlows = 'refuse' | 'accept';

export const notFound = () => problems.resourceNotFound('Flow');

/**
 * Tenancy of flows, in one place: reads see the active organization's flows and the shared
 * organization's; writes lock the row and refuse the shared organization's from elsewhere (403
 * `shared_read_only`); anything else, a malformed id included, is 404 with no side effect.
 */
export class FlowAccess {
  constructor(
    private readonly repo: FlowsRepo,
    private readonly orgAccess: OrgAccessRepo,
    private readonly audit: AuditWriter,
  ) {}

  /** Call before opening a transaction: the embedded database has one connection, and this reads outside it. */
  readableOrgIds(caller: FlowCaller): Promise<string[]> {
    return this.orgAccess.readableOrgIds(caller.org.id);
  }

  async readable(caller: FlowCaller, id: string): Promise<FlowRow> {
    if (!isUuid(id)) throw notFound();
    const row = await this.repo.find(await this.readableOrgIds(caller), id);
    if (!row || row.deleted_at) throw notFound();
    return row;
  }

  async lockWritable(
    trx: FlowsTx,
    orgIds: readonly string[],
    caller: FlowCaller,
    id: string,
    deleted: DeletedFlows = 'refuse',
  ): Promise<FlowRow> {
    if (!isUuid(id)) throw notFound();
    const row = await this.repo.lock(trx, orgIds, id);
    if (!row) throw notFound();
    const ownFlow = row.org_id === caller.org.id;
    // Another organization's deleted flow is as invisible as it is to reads.
    if (row.deleted_at && (deleted === 'refuse' || !ownFlow)) throw notFound();
    if (!ownFlow) throw problem('shared_read_only', 'This flow belongs to the shared organization: duplicate it to change it.');
    return row;
  }

  /**
   * Handler-level narrowing: a caller without the platform `admin` role may not introduce or change
   * host-access options, nor widen egress, relative to `current` (the draft being replaced).
   */
  refuseRestricted(caller: FlowCaller, current: FlowDefinition | undefined, next: FlowDefinition): void {
    if (caller.platformAdmin) return;
    const changes = restrictedChanges(current, next);
    const [first] = changes;
    if (!first) return;
    throw problem('restricted_option', `Only a platform admin may set this option: ${first.path} (${first.message}).`, {
      restriction: first.restriction,
      path: first.path,
      restrictions: changes,
    });
  }

  /** Runs a write; a narrowing refusal (which rolled the write back) is recorded as `authz.denied`. */
  async auditingRefusal<T>(caller: FlowCaller, action: string, flowId: string | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof Problem && error.code === 'restricted_option') {
        await this.audit.record(caller.audit, {
          eventType: 'authz.denied',
          action,
          resourceType: 'flow',
          ...(flowId && isUuid(flowId) ? { resourceId: flowId } : {}),
          outcome: 'denied',
          details: { reason: 'handler-level narrowing', restriction: error.extensions.restriction, path: error.extensions.path },
        });
      }
      throw error;
    }
  }

  /** Whether `draft` differs from the flow's newest version (always, before the first commit). */
  async dirty(trx: FlowsTx, flow: Pick<FlowRow, 'id' | 'latest_version'>, draft: FlowDefinition): Promise<boolean> {
    if (flow.latest_version === 0) return true;
    const latest = await this.repo.version(trx, flow.id, flow.latest_version);
    return !latest || !sameJson(latest.definition_json, draft);
  }

  async record(
    trx: FlowsTx,
    caller: FlowCaller,
    event: { eventType: string; action: string; flow: Pick<FlowRow, 'id' | 'org_id' | 'name'>; details?: Record<string, unknown> },
  ): Promise<void> {
    await this.audit.record(
      caller.audit,
      {
        eventType: event.eventType,
        action: event.action,
        resourceType: 'flow',
        resourceId: event.flow.id,
        outcome: 'success',
        orgId: event.flow.org_id,
        details: { name: event.flow.name, ...event.details },
      },
      trx,
    );
  }
}

/** What an audit entry says about a draft: its size and whether it is committable, never the definition itself. */
export function draftSummary(definition: FlowDefinition, valid: boolean): Record<string, unknown> {
  return {
    steps: definition.steps.length,
    edges: definition.edges.length,
    inputs: definition.inputs.length,
    target_roles: definition.target_roles.length,
    valid,
  };
}
