import type { InternalDestination } from '../../../shared/api/notifications.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { resolveSecrets } from './destination-config.js';
import type { DestinationsRepo } from './destinations-repo.js';
import type { EffectiveSubscription, SubscriptionsRepo } from './subscriptions-repo.js';

/** What the `flow.notify` step asks (`internal:resolve`), for the organization of the run it executes in. */
export class InternalNotifications {
  constructor(
    private readonly destinations: DestinationsRepo,
    private readonly subscriptions: SubscriptionsRepo,
    private readonly secrets: SecretResolver,
  ) {}

  /** The flow's effective subscriptions in `orgId` (the flow's own organization unless given). */
  async effectiveSubscriptions(
    flowId: string,
    orgId: string | undefined,
  ): Promise<{ flow_id: string; org_id: string; items: EffectiveSubscription[] }> {
    const flowOrg = isUuid(flowId) ? await this.subscriptions.flowOrg(flowId) : undefined;
    if (!flowOrg) throw problems.resourceNotFound('Flow');
    const org = orgId ?? flowOrg;
    return { flow_id: flowId, org_id: org, items: await this.subscriptions.effective(org, flowId) };
  }

  /**
   * A live destination of the run's organization with its secret references resolved there, so the step
   * can send; 404 for a destination of another organization, as for none.
   */
  async destination(id: string, runId: string): Promise<InternalDestination> {
    const runOrg = await this.destinations.runOrg(runId);
    const row = runOrg && isUuid(id) ? await this.destinations.find(runOrg, id) : undefined;
    if (!row || row.deleted_at) throw problems.resourceNotFound('Notification destination');
    const credentials = await resolveSecrets(this.secrets, row.org_id, row.kind, row.config_json);
    return { id: row.id, org_id: row.org_id, name: row.name, kind: row.kind, enabled: row.enabled, config: row.config_json, credentials };
  }
}
