import { z } from 'zod';
import { allowedSourceIpsSchema } from '../../../../shared/webhooks/allow-list-rules.js';
import { WEBHOOK_AUTH_MODES, WEBHOOK_BOUNDS, generatePathToken, webhookNameSchema } from '../../../../shared/webhooks/endpoint-rules.js';
import { changes } from '../../inventory/access.js';
import { defineFamily, orgOf, type FamilyContext } from '../family.js';
import type { FlowReferencesRepo } from '../repos/flow-references-repo.js';
import type { WebhookColumns, WebhooksRowsRepo } from '../repos/webhooks-rows-repo.js';
import { flowReference, orgAuditRecorder, refused, unresolved } from './references.js';

const item = z
  .object({
    name: webhookNameSchema,
    description: z.string().max(10_000).nullable().default(null),
    enabled: z.boolean().default(true),
    secret_ref: z.string().min(1).max(255).nullable().default(null).describe('The name of a secret of the organization'),
    auth_mode: z.enum(WEBHOOK_AUTH_MODES).default('hmac_sha256'),
    replay_window_seconds: z.int().min(WEBHOOK_BOUNDS.replayWindowSeconds.min).max(WEBHOOK_BOUNDS.replayWindowSeconds.max).default(300),
    rate_limit_per_minute: z.int().min(WEBHOOK_BOUNDS.rateLimitPerMinute.min).max(WEBHOOK_BOUNDS.rateLimitPerMinute.max).default(60),
    flow: z.string().min(1).max(255).nullable().describe("The name of the flow it triggers (the organization's, else the shared one's)"),
    flow_version: z.int().min(1).nullable().default(null),
    allowed_source_ips: allowedSourceIpsSchema.default(null),
    payload_mapping_json: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
type Item = z.infer<typeof item>;

const FAMILY = 'webhooks';
const SETTINGS = Object.keys(item.shape).filter((k) => k !== 'name') as (keyof Item)[];

/**
 * The organization's live webhook endpoints, keyed by name, their secret by `secret_ref` (its name) and
 * their flow by name. The `path_token` does not travel: it is the endpoint's credential-like address, so
 * an endpoint created from a bundle gets a new one (senders are pointed at the new installation anyway).
 */
export function webhooksFamily(repo: WebhooksRowsRepo, flows: FlowReferencesRepo, endpointsChanged: () => void) {
  const record = orgAuditRecorder('webhook:manage', 'webhook_endpoint');
  const columnsOf = async (ctx: FamilyContext, i: Item): Promise<WebhookColumns> => {
    const orgId = orgOf(ctx).id;
    const secretId = i.secret_ref === null ? null : await repo.secretId(ctx.db, orgId, i.secret_ref);
    if (secretId === undefined) throw unresolved(FAMILY, i.name, 'secret_ref', i.secret_ref!);
    const flowId = i.flow === null ? null : await flowReference(flows, ctx, FAMILY, i.name, i.flow);
    const { secret_ref: _secret, flow: _flow, ...rest } = i;
    return { ...rest, secret_id: secretId, flow_id: flowId };
  };
  return defineFamily<Item>({
    name: FAMILY,
    scope: 'org',
    dependsOn: ['secrets', 'flows'],
    summary:
      "The organization's webhook endpoints: every setting, the secret by secret_ref (name) and the flow by name; path tokens are new on the target.",
    item,
    keyOf: (i) => i.name,
    async list(ctx) {
      const rows = await repo.live(ctx.db, orgOf(ctx).id);
      const seen = new Set<string>();
      for (const row of rows) {
        if (seen.has(row.name))
          throw refused(FAMILY, row.name, 'duplicate_name', 'two live endpoints share this name; rename one to exchange them');
        seen.add(row.name);
      }
      return rows.map((r) => ({
        name: r.name,
        description: r.description,
        enabled: r.enabled,
        secret_ref: r.secret_name,
        auth_mode: r.auth_mode as Item['auth_mode'],
        replay_window_seconds: r.replay_window_seconds,
        rate_limit_per_minute: r.rate_limit_per_minute,
        flow: r.flow_name,
        flow_version: r.flow_version,
        allowed_source_ips: r.allowed_source_ips_json,
        payload_mapping_json: r.payload_mapping_json,
      }));
    },
    async create(ctx, i) {
      const id = await repo.insert(ctx.db, orgOf(ctx).id, await columnsOf(ctx, i), generatePathToken(), ctx.actor.sub);
      await record(ctx, 'entity.created', id, { endpoint: i });
      ctx.afterCommit(endpointsChanged);
    },
    async update(ctx, before, after) {
      const id = await repo.idOf(ctx.db, orgOf(ctx).id, before.name);
      await repo.update(ctx.db, id, await columnsOf(ctx, after), ctx.actor.sub);
      await record(ctx, 'entity.updated', id, { name: after.name, changes: changes(before, after, SETTINGS) });
      ctx.afterCommit(endpointsChanged);
    },
    async remove(ctx, i) {
      const id = await repo.idOf(ctx.db, orgOf(ctx).id, i.name);
      await repo.softDelete(ctx.db, id, ctx.actor.sub);
      await record(ctx, 'entity.deleted', id, { name: i.name });
      ctx.afterCommit(endpointsChanged);
    },
  });
}
