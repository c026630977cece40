import type { Knex } from 'knex';
import type { CreateSubscriptionBody, Subscription, SubscriptionList, UpdateSubscriptionBody } from '../../../shared/api/notifications.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import type { OrgRef } from './destinations-service.js';
import { subscriptionView } from './subscription-view.js';
import type { SubscriptionRow, SubscriptionsRepo } from './subscriptions-repo.js';
import { eventSet } from './event-set.js';

const RESOURCE = 'flow_subscription';
const MANAGE = 'flow_subscription:manage';
const flowNotFound = () => problems.resourceNotFound('Flow');
const notFound = () => problems.resourceNotFound('Subscription');

/**
 * A flow's notification subscriptions in the active organization (`flow_subscription:view|manage`). The flow
 * is the organization's or the shared one's (each organization subscribes to a shared flow for its own
 * runs); the destination is the organization's and live. One subscription per flow and destination.
 */
export class SubscriptionsService {
  constructor(
    private readonly repo: SubscriptionsRepo,
    private readonly orgAccess: OrgAccessRepo,
    private readonly audit: AuditWriter,
  ) {}

  async list(org: OrgRef, flowId: string): Promise<SubscriptionList> {
    await this.flow(org, flowId);
    return { items: (await this.repo.listOfFlow(org.id, flowId)).map(subscriptionView) };
  }

  async create(org: OrgRef, flowId: string, input: CreateSubscriptionBody, context: AuditContext | undefined): Promise<Subscription> {
    await this.flow(org, flowId);
    const by = context?.subject ?? null;
    return this.repo.transaction(async (trx) => {
      if (!(await this.repo.lockDestination(trx, org.id, input.destination_id)))
        throw problems.resourceNotFound('Notification destination');
      const id = await this.repo.insert(trx, {
        org_id: org.id,
        flow_id: flowId,
        destination_id: input.destination_id,
        events: JSON.stringify(eventSet(input.events)),
        enabled: input.enabled ?? true,
        created_by: by,
        updated_by: by,
      });
      if (!id) throw problems.conflict('The flow already has a subscription to this destination; change it instead.');
      const row = (await this.repo.find(org.id, flowId, id, trx))!;
      await this.record(trx, context, 'entity.created', row, {});
      return subscriptionView(row);
    });
  }

  async update(
    org: OrgRef,
    flowId: string,
    id: string,
    input: UpdateSubscriptionBody,
    context: AuditContext | undefined,
  ): Promise<Subscription> {
    await this.flow(org, flowId);
    if (!isUuid(id)) throw notFound();
    return this.repo.transaction(async (trx) => {
      const change: Record<string, unknown> = { updated_by: context?.subject ?? null };
      if (input.events !== undefined) change.events = JSON.stringify(eventSet(input.events));
      if (input.enabled !== undefined) change.enabled = input.enabled;
      const current = await this.repo.find(org.id, flowId, id, trx);
      if (!current) throw notFound();
      await this.repo.update(trx, id, change);
      const row = (await this.repo.find(org.id, flowId, id, trx))!;
      await this.record(trx, context, 'entity.updated', row, { changed: Object.keys(input).sort() });
      return subscriptionView(row);
    });
  }

  async remove(org: OrgRef, flowId: string, id: string, context: AuditContext | undefined): Promise<void> {
    await this.flow(org, flowId);
    if (!isUuid(id)) throw notFound();
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.find(org.id, flowId, id, trx);
      if (!row) throw notFound();
      await this.repo.remove(trx, id);
      await this.record(trx, context, 'entity.deleted', row, {});
    });
  }

  /** The flow, live in the active or the shared organization; 404 otherwise. */
  private async flow(org: OrgRef, flowId: string): Promise<void> {
    if (!isUuid(flowId)) throw flowNotFound();
    const orgIds = await this.orgAccess.readableOrgIds(org.id);
    if (!(await this.repo.readableFlow(orgIds, flowId))) throw flowNotFound();
  }

  private async record(
    trx: Knex.Transaction,
    context: AuditContext | undefined,
    eventType: string,
    row: SubscriptionRow,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(
      context,
      {
        eventType,
        action: MANAGE,
        resourceType: RESOURCE,
        resourceId: row.id,
        outcome: 'success',
        orgId: row.org_id,
        details: { ...details, flow_id: row.flow_id, destination_id: row.destination_id, events: row.events, enabled: row.enabled },
      },
      trx,
    );
  }
}
