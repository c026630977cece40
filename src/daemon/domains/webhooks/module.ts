import type { Services } from '../../services.js';
import { problem } from '../../../shared/api/problem.js';
import type { DomainRoutes } from '../../http/types.js';
import type { FlowDeleteGuard } from '../flows/module.js';
import type { DeviceDirectory } from '../inventory/device-directory.js';
import type { RunAdmission } from '../runs/run-admission.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { WebhookEndpointsService } from './endpoints-service.js';
import { webhookRoutes } from './routes.js';
import type { FrontDoorCheck } from '../../http/front-door.js';
import { IngressGate, type FrontDoorOptions } from './trigger/ingress-gate.js';
import { WebhookTrigger } from './trigger/trigger-service.js';
import { WebhooksRepo, type WebhooksTx } from './webhooks-repo.js';

export interface WebhooksModule {
  readonly routes: readonly DomainRoutes[];
  /** Live endpoints targeting a flow, with links (a flow they target cannot be deleted). */
  readonly referencingFlow: (flowId: string, trx?: WebhooksTx) => Promise<{ id: string; name: string; href: string }[]>;
  /** For the flows domain: refuses a flow's delete and purge while live endpoints target it. */
  readonly flowDeleteGuard: FlowDeleteGuard;
  readonly trigger: WebhookTrigger;
  /** The global backstop at the server's front door, before Koa (`IngressGate.frontDoorCheck`). */
  readonly frontDoor: (options: FrontDoorOptions) => FrontDoorCheck;
}

/** Inbound webhooks: endpoint management, the delivery journal and the public trigger route. */
export function webhooksModule(
  services: Services,
  core: { secrets: SecretResolver; devices: DeviceDirectory; admission: RunAdmission },
): WebhooksModule {
  const repo = new WebhooksRepo(services.db.knex, services.triggerConfig.invalidate);
  // One gate for every trigger limit: the trigger's steps and the server's front door ask the same buckets.
  const gate = new IngressGate({
    globalPerMinute: services.config.webhookGlobalIngressPerMinute,
    ingressMultiplier: services.config.webhookIngressLimitMultiplier,
  });
  const trigger = new WebhookTrigger({
    gate,
    endpoints: services.triggerConfig.cache(),
    repo,
    secrets: core.secrets,
    devices: core.devices,
    readableOrgIds: (orgId) => services.orgAccess.readableOrgIds(orgId),
    admission: core.admission,
    audit: services.audit,
    log: services.log,
    maxBodyBytes: services.config.webhookMaxBodyBytes,
    maxTargets: services.config.inventoryMaxRunTargets,
  });
  const endpoints = new WebhookEndpointsService(repo, services.audit, core.secrets, services.orgAccess, (id) => trigger.forget(id));
  const referencingFlow = (flowId: string, trx?: WebhooksTx) => endpoints.referencingFlow(flowId, trx);
  return {
    routes: [webhookRoutes(endpoints, trigger)],
    referencingFlow,
    flowDeleteGuard: async (flow, _kind, trx) => {
      const live = await referencingFlow(flow.id, trx);
      if (live.length === 0) return undefined;
      // Thrown rather than answered as a reason: the guard's string cannot carry the list a client can follow.
      throw problem(
        'conflict',
        `Live webhook endpoints trigger this flow: ${live.map((e) => `${e.name} (${e.href})`).join(', ')}. Delete or retarget them first.`,
        {
          endpoints: live,
        },
      );
    },
    trigger,
    frontDoor: (options) => gate.frontDoorCheck(options),
  };
}
