import { createHash } from 'node:crypto';
import { repeatedCredentialHeader } from '../../../auth/repeated-header.js';
import type { NotifiedCache } from '../../../db/notified-cache.js';
import { readLimited } from '../../../http/middleware/parse-body.js';
import { Problem } from '../../../../shared/api/problem.js';
import { problems } from '../../../../shared/api/problems.js';
import { pickSecretValue } from '../../../../shared/secrets/pick-value.js';
import { verifyBearer, verifySignature } from '../../../../shared/webhooks/signing.js';
import {
  decodeTriggerBody,
  parseTriggerBody,
  resolveTargets,
  type TriggerBody,
  type TriggerBodyFailure,
} from '../../../../shared/webhooks/trigger-body.js';
import type { DeviceDirectory } from '../../inventory/device-directory.js';
import type { RunAdmission } from '../../runs/run-admission.js';
import type { SecretResolver } from '../../secrets/secret-resolver.js';
import type { WebhookEndpointRow, WebhooksRepo } from '../webhooks-repo.js';
import type { AllowListCache } from './allow-list-cache.js';
import type { IngressGate } from './ingress-gate.js';
import { refuse, refuseAs, type Refusal } from './refusals.js';
import { IDEMPOTENCY_KEY_MAX, type TriggerContext } from './trigger-context.js';
import { WEBHOOK_ACTOR, type TriggerRecords } from './trigger-records.js';
import type { TouchThrottle } from './touch-throttle.js';

/** One step: it learns something about the request into its context, or throws the refusal. */
export type TriggerStep = (t: TriggerContext) => void | Promise<void>;

export interface TriggerStepParts {
  readonly gate: IngressGate;
  /** Endpoints by path token, emptied by every endpoint change (TriggerConfig). */
  readonly endpoints: NotifiedCache<WebhookEndpointRow>;
  readonly repo: WebhooksRepo;
  readonly secrets: SecretResolver;
  readonly devices: DeviceDirectory;
  readonly readableOrgIds: (orgId: string) => Promise<string[]>;
  readonly admission: RunAdmission;
  readonly allowLists: AllowListCache;
  readonly touches: TouchThrottle;
  readonly records: TriggerRecords;
  /** SERVICE_WEBHOOK_MAX_BODY_BYTES. */
  readonly maxBodyBytes: number;
  /** SERVICE_INVENTORY_MAX_RUN_TARGETS. */
  readonly maxTargets: number;
}

const PATH_TOKEN = /^[A-Za-z0-9_-]{16,64}$/;
/** An HMAC endpoint has no registered scheme: the challenge names the header the signature goes in. */
const SIGNATURE_CHALLENGE = 'X-Service-Signature realm="webhook"';
const BEARER_CHALLENGE = 'Bearer realm="webhook"';

/**
 * `POST /hooks/{path_token}`, step by step in the spec's order (docs/webhooks.md numbers them). The first
 * three need no query and run synchronously; until the lookup knows the endpoint a refusal is only
 * answered, after it every refusal is journaled and audited as the refusal table says (refusals.ts).
 */
export function triggerSteps(parts: TriggerStepParts): readonly TriggerStep[] {
  const { gate } = parts;
  return [
    function chargeGlobalBackstop(t) {
      throwIf(gate.chargeGlobal(t.request.body));
    },

    function checkTokenShape(t) {
      if (!PATH_TOKEN.test(t.request.pathToken)) throw unknownEndpoint();
    },

    // A token seen before is charged before its lookup, so a flood on a known endpoint costs no query.
    function chargeKnownTokenIngress(t) {
      t.knownRate = gate.knownRate(t.request.pathToken);
      if (t.knownRate !== undefined) throwIf(gate.chargeIngress(t.request.pathToken, t.knownRate));
    },

    // A token new to this instance is charged right after: its rate lives on the row.
    async function lookUpEndpoint(t) {
      const token = t.request.pathToken;
      const endpoint = await parts.endpoints.through(token, () => parts.repo.findByToken(token));
      if (!endpoint || !endpoint.enabled) {
        gate.unlearn(token);
        throw unknownEndpoint();
      }
      gate.learn(token, endpoint.id, endpoint.rate_limit_per_minute);
      if (t.knownRate === undefined) throwIf(gate.chargeIngress(token, endpoint.rate_limit_per_minute));
      t.begin(endpoint);
    },

    async function readBody(t) {
      try {
        t.raw = await readLimited(t.request.body, parts.maxBodyBytes);
      } catch (error) {
        throw error instanceof Problem ? refuseAs('payload_too_large', error) : error;
      }
      t.bodyHash = createHash('sha256').update(t.raw).digest('hex');
    },

    // Through the secret's backend; a built-in one's folder is cached until the secret changes.
    async function resolveSecret(t) {
      const secretId = t.endpoint.secret_id;
      if (!secretId) throw secretUnavailable('secret_missing');
      let folder: Readonly<Record<string, string>>;
      try {
        folder = await parts.secrets.readFolderCached(secretId);
      } catch {
        throw secretUnavailable('secret_backend_unavailable');
      }
      const value = pickSecretValue(folder);
      if (value === undefined || value === '') throw secretUnavailable('secret_unusable');
      t.key = value;
    },

    function authenticate(t) {
      const { endpoint, request } = t;
      const bearer = endpoint.auth_mode === 'bearer';
      const credentialHeader = bearer ? 'authorization' : 'x-service-signature';
      // Node keeps the first of two Authorization headers: a valid one followed by another must not pass.
      if (repeatedCredentialHeader(request.body.rawHeaders) === credentialHeader) {
        throw refuseAs('ambiguous_credentials', problems.ambiguousCredentials(credentialHeader));
      }
      const result = bearer
        ? verifyBearer(t.key, request.headers.authorization)
        : verifySignature({
            key: t.key,
            timestampHeader: request.headers['x-service-timestamp'],
            signatureHeader: request.headers['x-service-signature'],
            rawBody: t.raw!,
            nowSeconds: Math.floor(Date.now() / 1000),
            replayWindowSeconds: endpoint.replay_window_seconds,
          });
      if (!result.ok) {
        throw refuse(
          result.reason,
          'The request is not authenticated for this endpoint.',
          { reason: result.reason },
          { 'WWW-Authenticate': bearer ? BEARER_CHALLENGE : SIGNATURE_CHALLENGE },
        );
      }
    },

    function checkSourceAllowList(t) {
      if (!parts.allowLists.allows(t.endpoint, t.request.clientIp)) {
        throw refuse('source_not_allowed', "The caller's address is not in the endpoint's allow-list.");
      }
    },

    // A key already accepted is found by the accepted delivery's write (its gate), or before a later refusal is answered.
    function checkIdempotencyKey(t) {
      if (t.idempotencyHeader !== undefined && t.idempotencyKey === null) {
        throw refuse('invalid_idempotency_key', `X-Idempotency-Key must be one value of 1-${IDEMPOTENCY_KEY_MAX} characters.`);
      }
      t.keyChecked = t.idempotencyKey !== null;
    },

    function meterDelivery(t) {
      throwIf(gate.meterDelivery(t.endpoint.id, t.endpoint.rate_limit_per_minute));
      t.deliveryCharged = true;
    },

    // Body rules 1-6.
    function applyBodyRules(t) {
      const decoded = decodeTriggerBody(t.raw!);
      if (!decoded.ok) throw bodyRefusal(decoded);
      const parsed = parseTriggerBody(decoded.value, { maxTargets: parts.maxTargets });
      if (!parsed.ok) throw bodyRefusal(parsed);
      t.body = parsed;
    },

    // Body rule 7. UUIDs alone are left to run admission's own statement (same answer, 400
    // `unknown_device_reference`), which writes nothing when one is unknown: no query here.
    function resolveDevices(t) {
      const body = t.body!;
      if (body.providerRefs.length > 0) return resolveReferences(t, body);
      t.targets = Object.fromEntries(Object.entries(body.targets).map(([role, ids]) => [role, [...new Set(ids)]]));
      return undefined;
    },

    function requireLinkedFlow(t) {
      if (!t.endpoint.flow_id) throw refuse('no_linked_flow', 'No linked flow');
    },

    // The run, its entry, the journal row and `webhook.triggered` in one statement: no transaction.
    async function admitRun(t) {
      const { endpoint, request } = t;
      const touch = parts.touches.due(endpoint.id);
      const run = await parts.admission.admit(
        parts.repo.direct,
        {
          orgId: endpoint.org_id,
          flowId: endpoint.flow_id!,
          version: endpoint.flow_version,
          params: t.body!.params,
          targets: t.targets!,
          trigger: {
            source: 'webhook',
            details: { webhook_endpoint_id: endpoint.id, delivery_id: t.deliveryId, source_ip_masked: t.sourceIpMasked },
          },
          audit: request.audit,
          actor: WEBHOOK_ACTOR,
          createdBy: WEBHOOK_ACTOR.sub,
        },
        (facts) =>
          parts.repo.acceptedDelivery(
            parts.records.delivery(t, 202, true, null, [facts.id]),
            parts.records.entry(t, 'webhook.triggered', 'success', {
              delivery_id: t.deliveryId,
              run_id: facts.id,
              flow_id: facts.flow_id,
              flow_version: facts.flow_version,
            }),
            touch,
          ),
      );
      if (touch) parts.touches.touched(endpoint.id);
      t.envelope = {
        delivery_id: t.deliveryId,
        triggered_runs: [
          {
            target_type: 'flow',
            target_id: run.flow_id,
            flow_id: run.flow_id,
            target_name: run.flow_name,
            flow_name: run.flow_name,
            run_id: run.id,
            workflow_id: run.workflow_id,
          },
        ],
      };
    },
  ];

  /** A body naming provider references: every device it names must exist, looked up in parallel. */
  async function resolveReferences(t: TriggerContext, body: TriggerBody): Promise<void> {
    const orgId = t.endpoint.org_id;
    const uuids = [...new Set(Object.values(body.targets).flat())];
    const [liveIds, byProviderRef] = await Promise.all([
      uuids.length === 0 ? new Set<string>() : parts.readableOrgIds(orgId).then((orgIds) => parts.devices.liveIds(orgIds, uuids)),
      parts.devices.byProviderRefs(orgId, body.providerRefs),
    ]);
    const resolved = resolveTargets(body, { liveIds, byProviderRef });
    if (!resolved.ok) throw bodyRefusal(resolved);
    t.targets = resolved.targets;
  }
}

/**
 * Runs `steps` in order. They run synchronously until one returns a promise, and the rest follow it: a
 * refusal by a leading synchronous step is thrown here at once, so a shed request crosses no async frame.
 */
export function runSteps(steps: readonly TriggerStep[], t: TriggerContext, from = 0): Promise<void> | undefined {
  for (let i = from; i < steps.length; i += 1) {
    const pending = steps[i]!(t);
    if (pending) return pending.then(() => runSteps(steps, t, i + 1));
  }
  return undefined;
}

function throwIf(refusal: Refusal | undefined): void {
  if (refusal) throw refusal;
}

function unknownEndpoint(): Refusal {
  return refuse('unknown_endpoint', 'No enabled webhook endpoint has this address.');
}

function secretUnavailable(reason: 'secret_missing' | 'secret_backend_unavailable' | 'secret_unusable'): Refusal {
  return refuse(reason, "The endpoint's secret cannot be resolved; retry later.", {}, { 'Retry-After': '30' });
}

function bodyRefusal(failure: TriggerBodyFailure): Refusal {
  return refuse(failure.code, failure.detail, failure.extensions);
}
