import type { z } from 'zod';
import type { createWebhookBody, updateWebhookBody } from '../../../shared/api/webhooks.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import type { Problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { pickSecretValue } from '../../../shared/secrets/pick-value.js';
import { generatePathToken } from '../../../shared/webhooks/endpoint-rules.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { refuseIfChanged } from '../../http/entity-tag.js';
import {
  endpointAuditView,
  endpointListItem,
  endpointView,
  deliveryView,
  lockedEndpointVersion,
  type EndpointView,
} from './endpoint-view.js';
import type { WebhookEndpointRow, WebhooksRepo, WebhooksTx } from './webhooks-repo.js';

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

/** What update accepts once its route's schema has parsed it (create: the same, with `name` and `flow_id`). */
export type EndpointInput = z.output<typeof updateWebhookBody>;

/** Tells the trigger path's per-instance state (buckets) that an endpoint changed or went away. */
export type EndpointChanged = (endpointId: string) => void;

const RESOURCE = 'webhook_endpoint';

function notFound(): Problem {
  return problems.resourceNotFound('Webhook endpoint');
}

/** Whether a change names the flow or its pin, so was checked against the endpoint's flow as it stood. */
function touchesFlow(input: EndpointInput): boolean {
  return input.flow_id !== undefined || input.flow_version !== undefined;
}

/**
 * Webhook endpoint management (`webhook:*`): every field rule of the spec, references checked inside the
 * organization (the flow may also be the shared organization's), each change audited in its transaction.
 */
export class WebhookEndpointsService {
  constructor(
    private readonly repo: WebhooksRepo,
    private readonly audit: AuditWriter,
    private readonly secrets: SecretResolver,
    private readonly orgAccess: OrgAccessRepo,
    private readonly changed: EndpointChanged = () => {},
  ) {}

  async list(org: OrgRef, includeDeleted: boolean) {
    return (await this.repo.list(org.id, includeDeleted)).map(endpointListItem);
  }

  async get(org: OrgRef, id: string): Promise<EndpointView> {
    const row = isUuid(id) ? await this.repo.find(org.id, id) : undefined;
    if (!row || row.deleted_at) throw notFound();
    return endpointView(row);
  }

  async create(
    org: OrgRef,
    input: z.output<typeof createWebhookBody>,
    context: AuditContext | undefined,
    actor: string | undefined,
  ): Promise<EndpointView> {
    await this.checkReferences(org, input, undefined);
    return this.repo.transaction(async (trx) => {
      const id = await this.repo.insert(trx, {
        org_id: org.id,
        name: input.name,
        description: input.description ?? null,
        enabled: input.enabled ?? true,
        path_token: generatePathToken(),
        secret_id: input.secret_id ?? null,
        auth_mode: input.auth_mode ?? 'hmac_sha256',
        replay_window_seconds: input.replay_window_seconds ?? 300,
        rate_limit_per_minute: input.rate_limit_per_minute ?? 60,
        flow_id: input.flow_id,
        flow_version: input.flow_version ?? null,
        allowed_source_ips_json: input.allowed_source_ips ? JSON.stringify(input.allowed_source_ips) : null,
        payload_mapping_json: JSON.stringify(input.payload_mapping_json ?? {}),
        created_by: actor ?? null,
        updated_by: actor ?? null,
      });
      const view = endpointView((await this.repo.find(org.id, id, trx))!);
      await this.record(trx, context, org, 'entity.created', 'webhook:manage', id, { endpoint: endpointAuditView(view) });
      return view;
    });
  }

  /** `ifMatch`: the request's `If-Match`, held against the locked row's version (`endpointVersion`) before anything changes. */
  async update(
    org: OrgRef,
    id: string,
    given: EndpointInput,
    context: AuditContext | undefined,
    actor: string | undefined,
    ifMatch?: string,
  ): Promise<EndpointView> {
    if (!isUuid(id)) throw notFound();
    const current = await this.repo.find(org.id, id);
    if (!current || current.deleted_at) throw notFound();
    // Retargeting drops a pin the request does not restate: version N of one flow says nothing about another.
    const retargets = given.flow_id !== undefined && given.flow_id !== current.flow_id && given.flow_version === undefined;
    const input: EndpointInput = retargets ? { ...given, flow_version: null } : given;
    if (input.auth_mode !== undefined && input.auth_mode !== current.auth_mode) {
      throw problems.validation([{ path: 'auth_mode', message: 'is fixed at creation; create a new endpoint for another mode' }]);
    }
    await this.checkReferences(org, input, current);
    const view = await this.repo.transaction(async (trx) => {
      const locked = await this.repo.lock(trx, org.id, id);
      if (!locked || locked.deleted_at) throw notFound();
      refuseIfChanged(ifMatch, () => lockedEndpointVersion(locked), 'webhook endpoint');
      // The flow and the pin were checked, and a pin dropped, against the row as read before the lock.
      if (touchesFlow(input) && (locked.flow_id !== current.flow_id || locked.flow_version !== current.flow_version)) {
        throw problems.conflict("The endpoint's flow or pinned version changed while this change was checked; read it again.");
      }
      const change = columnsOf(input);
      if (Object.keys(change).length > 0) await this.repo.update(trx, id, { ...change, updated_by: actor ?? null });
      const after = endpointView((await this.repo.find(org.id, id, trx))!);
      await this.record(trx, context, org, 'entity.updated', 'webhook:manage', id, { changed: Object.keys(given).sort() });
      return after;
    });
    this.changed(id);
    return view;
  }

  async remove(org: OrgRef, id: string, context: AuditContext | undefined, actor: string | undefined): Promise<void> {
    if (!isUuid(id)) throw notFound();
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, org.id, id);
      if (!row || row.deleted_at) throw notFound();
      await this.repo.softDelete(trx, id, actor ?? null);
      await this.record(trx, context, org, 'entity.deleted', 'webhook:manage', id, { name: row.name });
    });
    this.changed(id);
  }

  async restore(org: OrgRef, id: string, context: AuditContext | undefined, actor: string | undefined): Promise<EndpointView> {
    if (!isUuid(id)) throw notFound();
    return this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, org.id, id);
      if (!row || !row.deleted_at) throw notFound();
      await this.repo.restore(trx, id, actor ?? null);
      const view = endpointView((await this.repo.find(org.id, id, trx))!);
      await this.record(trx, context, org, 'entity.restored', 'webhook:manage', id, { endpoint: endpointAuditView(view) });
      return view;
    });
  }

  /** Permanent removal (live or soft-deleted); the journal goes with it (cascade). */
  async purge(org: OrgRef, id: string, context: AuditContext | undefined): Promise<void> {
    if (!isUuid(id)) throw notFound();
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, org.id, id);
      if (!row) throw notFound();
      await this.repo.purge(trx, id);
      await this.record(trx, context, org, 'entity.purged', 'webhook:purge', id, { name: row.name });
    });
    this.changed(id);
  }

  /** A cutover: from the commit on, only the new secret verifies. */
  async rotateSecret(
    org: OrgRef,
    id: string,
    newSecretId: string,
    context: AuditContext | undefined,
    actor: string | undefined,
  ): Promise<EndpointView> {
    if (!isUuid(id)) throw notFound();
    const current = await this.repo.find(org.id, id);
    if (!current || current.deleted_at) throw notFound();
    if (!(await this.secrets.find(org.id, newSecretId))) {
      throw problems.validation([{ path: 'new_secret_id', message: 'names no secret of this organization' }]);
    }
    if (newSecretId === current.secret_id) {
      throw problems.validation([{ path: 'new_secret_id', message: "is already the endpoint's secret" }]);
    }
    return this.repo.transaction(async (trx) => {
      const locked = await this.repo.lock(trx, org.id, id);
      if (!locked || locked.deleted_at) throw notFound();
      await this.repo.update(trx, id, { secret_id: newSecretId, updated_by: actor ?? null });
      const view = endpointView((await this.repo.find(org.id, id, trx))!);
      await this.record(trx, context, org, 'entity.updated', 'webhook:rotate_secret', id, {
        rotated_secret: { from: locked.secret_id, to: newSecretId },
      });
      return view;
    });
  }

  /** Checks the configuration as a trigger would find it; sends nothing and starts no run. */
  async test(org: OrgRef, id: string) {
    const endpoint = await this.get(org, id);
    const errors: { code: string; message: string }[] = [];
    let secretResolvable = false;
    if (endpoint.secret_id === null) {
      errors.push({ code: 'secret_missing', message: 'No secret is linked.' });
    } else {
      try {
        secretResolvable = pickSecretValue(await this.secrets.readFolder(endpoint.secret_id)) !== undefined;
        if (!secretResolvable) errors.push({ code: 'secret_unusable', message: 'The secret holds no usable value.' });
      } catch {
        errors.push({ code: 'secret_backend_unavailable', message: 'The secret backend did not answer.' });
      }
    }
    const flow = endpoint.flow_id
      ? await this.repo.flowFacts(await this.orgAccess.readableOrgIds(org.id), endpoint.flow_id, endpoint.flow_version)
      : undefined;
    const flowExists = flow !== undefined;
    if (!flowExists) errors.push({ code: 'flow_missing', message: 'No live flow of this organization or the shared one is linked.' });
    const versionAvailable = flow !== undefined && (endpoint.flow_version === null ? flow.latest_version > 0 : flow.version_exists);
    if (flowExists && !versionAvailable) {
      errors.push(
        endpoint.flow_version === null
          ? { code: 'flow_not_committed', message: 'The flow has no committed version.' }
          : { code: 'flow_version_not_found', message: `The flow has no version ${endpoint.flow_version}.` },
      );
    }
    if (!endpoint.enabled) errors.push({ code: 'endpoint_disabled', message: 'The endpoint is disabled: triggers answer 404.' });
    return {
      valid: errors.length === 0,
      checks: {
        secret_resolvable: secretResolvable,
        flow_exists: flowExists,
        flow_version_available: versionAvailable,
        enabled: endpoint.enabled,
      },
      errors,
    };
  }

  async deliveries(org: OrgRef, id: string, limit: number, offset: number) {
    const endpoint = isUuid(id) ? await this.repo.find(org.id, id) : undefined;
    if (!endpoint) throw notFound();
    const page = await this.repo.deliveries(id, limit, offset);
    return { items: page.items.map(deliveryView), total: page.total };
  }

  /** Live endpoints targeting a flow, as the flow delete refusal lists them (`trx`: the delete's transaction). */
  async referencingFlow(flowId: string, trx?: WebhooksTx): Promise<{ id: string; name: string; href: string }[]> {
    return (await this.repo.referencingFlow(flowId, trx)).map((e) => ({ ...e, href: `/webhooks/${e.id}` }));
  }

  private async checkReferences(org: OrgRef, input: EndpointInput, current: WebhookEndpointRow | undefined): Promise<void> {
    const errors: { path: string; message: string }[] = [];
    if (input.secret_id !== undefined && input.secret_id !== null && !(await this.secrets.find(org.id, input.secret_id))) {
      errors.push({ path: 'secret_id', message: 'names no secret of this organization' });
    }
    const flowId = input.flow_id ?? current?.flow_id ?? null;
    const version = input.flow_version !== undefined ? input.flow_version : (current?.flow_version ?? null);
    if (touchesFlow(input) && flowId !== null) {
      const flow = await this.repo.flowFacts(await this.orgAccess.readableOrgIds(org.id), flowId, version);
      if (!flow) errors.push({ path: 'flow_id', message: 'names no live flow of this organization or the shared organization' });
      else if (version !== null && !flow.version_exists)
        errors.push({ path: 'flow_version', message: `the flow has no committed version ${version}` });
    } else if (input.flow_version !== undefined && flowId === null) {
      errors.push({ path: 'flow_id', message: 'the endpoint has no flow to pin a version of' });
    }
    if (errors.length > 0) throw problems.validation(errors);
  }

  private record(
    trx: WebhooksTx,
    context: AuditContext | undefined,
    org: OrgRef,
    eventType: string,
    action: string,
    id: string,
    details: Record<string, unknown>,
  ): Promise<string> {
    return this.audit.record(
      context,
      { eventType, action, resourceType: RESOURCE, resourceId: id, outcome: 'success', orgId: org.id, details },
      trx,
    );
  }
}

function columnsOf(input: EndpointInput): Record<string, unknown> {
  const change: Record<string, unknown> = {};
  if (input.name !== undefined) change.name = input.name;
  if (input.description !== undefined) change.description = input.description;
  if (input.enabled !== undefined) change.enabled = input.enabled;
  if (input.secret_id !== undefined) change.secret_id = input.secret_id;
  if (input.replay_window_seconds !== undefined) change.replay_window_seconds = input.replay_window_seconds;
  if (input.rate_limit_per_minute !== undefined) change.rate_limit_per_minute = input.rate_limit_per_minute;
  if (input.flow_id !== undefined) change.flow_id = input.flow_id;
  if (input.flow_version !== undefined) change.flow_version = input.flow_version;
  if (input.allowed_source_ips !== undefined)
    change.allowed_source_ips_json = input.allowed_source_ips === null ? null : JSON.stringify(input.allowed_source_ips);
  if (input.payload_mapping_json !== undefined) change.payload_mapping_json = JSON.stringify(input.payload_mapping_json);
  return change;
}
