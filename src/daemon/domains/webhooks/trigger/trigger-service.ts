import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuditContext } from '../../../audit/audit-context.js';
import type { AuditRow } from '../../../audit/audit-repo.js';
import type { AuditEvent, AuditWriter } from '../../../audit/audit-writer.js';
import { readLimited } from '../../../http/middleware/parse-body.js';
import { Problem, problems } from '../../../http/problem.js';
import { repeatedCredentialHeader } from '../../../auth/repeated-header.js';
import type { Logger } from '../../../logging/logger.js';
import { IngressBackstop } from '../../../webhooks/ingress-backstop.js';
import { TokenBucketRegistry } from '../../../webhooks/token-bucket.js';
import { maskSourceIp } from '../../../webhooks/source-allow-list.js';
import { pickSecretValue } from '../../../../shared/secrets/pick-value.js';
import { singleHeader, verifyBearer, verifySignature } from '../../../../shared/webhooks/signing.js';
import {
  decodeTriggerBody,
  parseTriggerBody,
  resolveTargets,
  type TriggerBody,
  type TriggerBodyFailure,
} from '../../../../shared/webhooks/trigger-body.js';
import type { DeviceDirectory } from '../../inventory/device-directory.js';
import { AdmissionGateClosed, type RunAdmission } from '../../runs/run-admission.js';
import type { SecretResolver } from '../../secrets/secret-resolver.js';
import type { AcceptedDelivery, WebhookEndpointRow, WebhooksRepo } from '../webhooks-repo.js';
import { AllowListCache } from './allow-list-cache.js';
import { NotifiedCache } from '../../../db/notified-cache.js';
import { isDatabaseUnavailable } from '../../../db/database-errors.js';
import { endpointNotFound, rateLimited } from './trigger-problems.js';

export interface TriggerSettings {
  readonly globalIngressPerMinute: number;
  readonly ingressMultiplier: number;
  readonly maxBodyBytes: number;
  readonly maxTargets: number;
}

/** What one trigger request brings: its token, headers, body stream, caller and audit context. */
export interface TriggerRequest {
  readonly pathToken: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: IncomingMessage;
  readonly clientIp: string;
  readonly audit: AuditContext | undefined;
}

export interface TriggerEnvelope {
  readonly delivery_id: string;
  readonly triggered_runs: readonly {
    readonly target_type: 'flow';
    readonly target_id: string;
    readonly flow_id: string;
    readonly target_name: string;
    readonly flow_name: string;
    readonly run_id: string;
    readonly workflow_id: string;
  }[];
}

type Outcome = 'accepted' | 'rejected' | 'duplicate' | 'error';

/** The actor of every trigger entry: a public route has no user. */
const WEBHOOK_ACTOR = { sub: 'system:webhook', username: 'system:webhook' } as const;
const PATH_TOKEN = /^[A-Za-z0-9_-]{16,64}$/;
const IDEMPOTENCY_KEY_MAX = 255;
const KNOWN_TOKENS_CAP = 100_000;
const TOUCH_INTERVAL_MS = 1000;
/** An HMAC endpoint has no registered scheme: the challenge names the header the signature goes in. */
const WEBHOOK_SIGNATURE_CHALLENGE = 'X-Service-Signature realm="webhook"';
const WEBHOOK_BEARER_CHALLENGE = 'Bearer realm="webhook"';

interface KnownToken {
  readonly endpointId: string;
  readonly ratePerMinute: number;
}

/** A refusal after the endpoint is known: the answer, and whether the journal keeps it. */
class Refusal {
  constructor(
    readonly problem: Problem,
    readonly reason: string,
    readonly journal: boolean,
    readonly signatureValid: boolean,
  ) {}
}

/**
 * `POST /hooks/{path_token}` in the spec's order: global backstop and token shape (no query), per-endpoint
 * ingress limit (a known token before its lookup, a new one right after; always before the body is read
 * or the secret resolved), body size, secret resolution, authentication, source allow-list, idempotency
 * (found by the accepted delivery's insert, or looked up before a later refusal is answered), delivery
 * limit, body rules, device references, linked flow, then run admission and the accepted delivery in one
 * statement. The endpoint, its built-in secret and the flow come from caches emptied by every change.
 * Every refusal after the lookup is journaled (except the ones the spec keeps out) and audited as
 * `webhook.rejected`; every outcome is logged once. docs/webhooks.md has the table.
 */
export class WebhookTrigger {
  /** The global backstop, charged here or, for most requests, at the front door (`shedAtFrontDoor`). */
  readonly backstop: IngressBackstop;
  readonly #ingress = new TokenBucketRegistry();
  readonly #delivery = new TokenBucketRegistry();
  readonly #allowLists = new AllowListCache();
  /** Path token -> the endpoint and ingress rate last seen, so a flood on a known token is shed without a query. */
  readonly #known = new Map<string, KnownToken>();
  /** Endpoint id -> when this instance last wrote its `last_triggered_at` (monotonic ms). */
  readonly #touched = new Map<string, number>();

  constructor(
    private readonly repo: WebhooksRepo,
    private readonly secrets: SecretResolver,
    private readonly devices: DeviceDirectory,
    private readonly readableOrgIds: (orgId: string) => Promise<string[]>,
    private readonly admission: RunAdmission,
    private readonly audit: AuditWriter,
    private readonly log: Logger,
    private readonly settings: TriggerSettings,
    /** Endpoints by path token, emptied by every endpoint change (TriggerConfig). */
    private readonly endpoints: NotifiedCache<WebhookEndpointRow> = new NotifiedCache(),
  ) {
    this.backstop = new IngressBackstop(settings.globalIngressPerMinute);
  }

  /** An endpoint changed or went away: its buckets and compiled allow-list start afresh. */
  forget(endpointId: string): void {
    for (const [token, known] of this.#known) {
      if (known.endpointId === endpointId) {
        this.#known.delete(token);
        this.#ingress.delete(token);
      }
    }
    this.#delivery.delete(endpointId);
    this.#allowLists.delete(endpointId);
    this.#touched.delete(endpointId);
  }

  /**
   * The refusals that need no query are decided here, synchronously, and answered as an already rejected
   * promise: a shed request then crosses no async frame (each would rethrow it, most of a refusal's cost).
   */
  trigger(request: TriggerRequest): Promise<TriggerEnvelope> {
    const shed = this.backstop.charge(request.body);
    if (!shed.ok) return Promise.reject(rateLimited(shed.retryAfterSeconds, 'global'));
    // A token that cannot exist needs no query.
    if (!PATH_TOKEN.test(request.pathToken)) return Promise.reject(endpointNotFound());
    // A token seen before is charged before its lookup, so a flood on a known endpoint costs no query.
    const known = this.#known.get(request.pathToken);
    if (known) {
      const charged = this.#ingress.take(request.pathToken, known.ratePerMinute * this.settings.ingressMultiplier);
      if (!charged.ok) return Promise.reject(rateLimited(charged.retryAfterSeconds, 'endpoint_ingress'));
    }
    return this.process(request, known);
  }

  private async process(request: TriggerRequest, known: KnownToken | undefined): Promise<TriggerEnvelope> {
    const idempotencyHeader = singleHeader(request.headers['x-idempotency-key']);
    // A key the journal's column can hold; any other header value is refused, and journaled without it.
    const idempotencyKey =
      typeof idempotencyHeader === 'string' && idempotencyHeader.length > 0 && idempotencyHeader.length <= IDEMPOTENCY_KEY_MAX
        ? idempotencyHeader
        : null;
    const endpoint = await this.lookup(request.pathToken, known);

    const started = performance.now();
    const deliveryId = randomUUID();
    let bodyHash: string | null = null;
    // Past the idempotency step, a refusal of a key already accepted answers as the duplicate it is.
    let keyChecked = false;
    // Whether a delivery token was taken: a duplicate found later gives it back (the spec meters only new deliveries).
    let charged = false;
    try {
      const raw = await this.readBody(request.body);
      bodyHash = createHash('sha256').update(raw).digest('hex');
      const key = await this.resolveKey(endpoint);
      this.authenticate(endpoint, key, request.body, raw);
      if (!this.#allowLists.allows(endpoint, request.clientIp)) {
        throw new Refusal(
          new Problem(403, 'source_not_allowed', "The caller's address is not in the endpoint's allow-list."),
          'source_not_allowed',
          true,
          true,
        );
      }
      if (idempotencyHeader !== undefined && idempotencyKey === null) {
        throw new Refusal(
          invalidPayload(`X-Idempotency-Key must be one value of 1-${IDEMPOTENCY_KEY_MAX} characters.`),
          'invalid_idempotency_key',
          true,
          true,
        );
      }
      // A duplicate is found by the accepted delivery's write (its gate), or by the refusal below.
      keyChecked = idempotencyKey !== null;
      const metered = this.#delivery.take(endpoint.id, endpoint.rate_limit_per_minute);
      if (!metered.ok) throw new Refusal(rateLimited(metered.retryAfterSeconds, 'endpoint_delivery'), 'rate_limited', false, true);
      charged = true;
      const body = this.parseBody(raw);
      const targets = await this.resolveTargets(endpoint, body);
      if (!endpoint.flow_id) throw new Refusal(new Problem(422, 'no_linked_flow', 'No linked flow'), 'no_linked_flow', true, true);

      const touch = this.touchDue(endpoint.id);
      // The run, its entry, the journal row and `webhook.triggered` in one statement: no transaction.
      const run = await this.admission.admit(
        this.repo.direct,
        {
          orgId: endpoint.org_id,
          flowId: endpoint.flow_id,
          version: endpoint.flow_version,
          params: body.params,
          targets,
          trigger: {
            source: 'webhook',
            details: { webhook_endpoint_id: endpoint.id, delivery_id: deliveryId, source_ip_masked: maskSourceIp(request.clientIp) },
          },
          audit: request.audit,
          actor: WEBHOOK_ACTOR,
          createdBy: WEBHOOK_ACTOR.sub,
        },
        (facts) =>
          this.repo.acceptedDelivery(
            {
              id: deliveryId,
              webhook_endpoint_id: endpoint.id,
              idempotency_key: idempotencyKey,
              signature_valid: true,
              source_ip: request.clientIp.slice(0, 45),
              request_body_hash: bodyHash,
              response_status: 202,
              error_detail: null,
              run_ids: [facts.id],
              processing_duration_ms: Math.round(performance.now() - started),
            },
            this.auditEntry(request, endpoint, 'webhook.triggered', 'success', {
              delivery_id: deliveryId,
              run_id: facts.id,
              flow_id: facts.flow_id,
              flow_version: facts.flow_version,
            }),
            touch,
          ),
      );
      const envelope: TriggerEnvelope = {
        delivery_id: deliveryId,
        triggered_runs: [
          {
            target_type: 'flow' as const,
            target_id: run.flow_id,
            flow_id: run.flow_id,
            target_name: run.flow_name,
            flow_name: run.flow_name,
            run_id: run.id,
            workflow_id: run.workflow_id,
          },
        ],
      };
      if (touch) this.#touched.set(endpoint.id, performance.now());
      this.logOutcome(endpoint, deliveryId, [envelope.triggered_runs[0]!.run_id], request.clientIp, 'accepted', 202);
      return envelope;
    } catch (error) {
      const refusal = await this.asRefusal(error, endpoint.id, keyChecked ? idempotencyKey : null);
      if (charged && refusal?.problem.code === 'duplicate_delivery') this.#delivery.giveBack(endpoint.id);
      if (!refusal) {
        this.logOutcome(endpoint, deliveryId, [], request.clientIp, 'error', isDatabaseUnavailable(error) ? 503 : 500);
        throw error;
      }
      await this.recordRefusal(request, endpoint, refusal, { deliveryId, bodyHash, idempotencyKey, started });
      throw refusal.problem;
    }
  }

  /**
   * The endpoint (cached until an endpoint changes) and, for a token not seen before, its ingress charge
   * right after: its rate lives on the row.
   */
  private async lookup(token: string, known: KnownToken | undefined): Promise<WebhookEndpointRow> {
    const endpoint = await this.endpoints.through(token, () => this.repo.findByToken(token));
    if (!endpoint || !endpoint.enabled) {
      this.#known.delete(token);
      throw endpointNotFound();
    }
    if (!known || known.ratePerMinute !== endpoint.rate_limit_per_minute) {
      this.#known.delete(token);
      this.#known.set(token, { endpointId: endpoint.id, ratePerMinute: endpoint.rate_limit_per_minute });
      if (this.#known.size > KNOWN_TOKENS_CAP) this.#known.delete(this.#known.keys().next().value!);
      if (!known) {
        const charged = this.#ingress.take(token, endpoint.rate_limit_per_minute * this.settings.ingressMultiplier);
        if (!charged.ok) throw rateLimited(charged.retryAfterSeconds, 'endpoint_ingress');
      }
    }
    return endpoint;
  }

  /**
   * Whether this accepted trigger also writes `last_triggered_at`: at most once a second per endpoint on
   * this instance, so a busy endpoint's row is not rewritten (and locked) by every trigger.
   */
  private touchDue(endpointId: string): boolean {
    const last = this.#touched.get(endpointId);
    if (last !== undefined && performance.now() - last < TOUCH_INTERVAL_MS) return false;
    if (last === undefined && this.#touched.size >= KNOWN_TOKENS_CAP) this.#touched.delete(this.#touched.keys().next().value!);
    return true;
  }

  private async readBody(body: IncomingMessage): Promise<Buffer> {
    try {
      return await readLimited(body, this.settings.maxBodyBytes);
    } catch (error) {
      if (error instanceof Problem) throw new Refusal(error, 'payload_too_large', true, false);
      throw error;
    }
  }

  /** The signing key or expected token, through the secret's backend (a built-in one's cached until the secret changes). */
  private async resolveKey(endpoint: WebhookEndpointRow): Promise<string> {
    const unavailable = (reason: string) =>
      new Refusal(
        new Problem(
          503,
          'secret_backend_unavailable',
          "The endpoint's secret cannot be resolved; retry later.",
          {},
          { 'Retry-After': '30' },
        ),
        reason,
        false,
        false,
      );
    if (!endpoint.secret_id) throw unavailable('secret_missing');
    let folder: Readonly<Record<string, string>>;
    try {
      folder = await this.secrets.readFolderCached(endpoint.secret_id);
    } catch {
      throw unavailable('secret_backend_unavailable');
    }
    const value = pickSecretValue(folder);
    if (value === undefined || value === '') throw unavailable('secret_unusable');
    return value;
  }

  private authenticate(endpoint: WebhookEndpointRow, key: string, request: IncomingMessage, raw: Buffer): void {
    const headers = request.headers;
    const credentialHeader = endpoint.auth_mode === 'bearer' ? 'authorization' : 'x-service-signature';
    // Node keeps the first of two Authorization headers: a valid one followed by another must not pass.
    if (repeatedCredentialHeader(request.rawHeaders) === credentialHeader) {
      throw new Refusal(problems.ambiguousCredentials(credentialHeader), 'ambiguous_credentials', true, false);
    }
    const result =
      endpoint.auth_mode === 'bearer'
        ? verifyBearer(key, headers.authorization)
        : verifySignature({
            key,
            timestampHeader: headers['x-service-timestamp'],
            signatureHeader: headers['x-service-signature'],
            rawBody: raw,
            nowSeconds: Math.floor(Date.now() / 1000),
            replayWindowSeconds: endpoint.replay_window_seconds,
          });
    if (!result.ok) {
      const challenge = endpoint.auth_mode === 'bearer' ? WEBHOOK_BEARER_CHALLENGE : WEBHOOK_SIGNATURE_CHALLENGE;
      const problem = new Problem(
        401,
        'webhook_auth_failed',
        'The request is not authenticated for this endpoint.',
        { reason: result.reason },
        { 'WWW-Authenticate': challenge },
      );
      throw new Refusal(problem, result.reason, true, false);
    }
  }

  private parseBody(raw: Buffer): TriggerBody {
    const decoded = decodeTriggerBody(raw);
    if (!decoded.ok) throw bodyRefusal(decoded);
    const parsed = parseTriggerBody(decoded.value, { maxTargets: this.settings.maxTargets });
    if (!parsed.ok) throw bodyRefusal(parsed);
    return parsed;
  }

  /**
   * Rule 7: every device the body names must exist — a UUID in the endpoint's organization or the shared
   * one, a provider reference in the endpoint's organization only. No query unless the body names a
   * provider reference: UUIDs alone are left to run admission (same answer, 400 `unknown_device_reference`).
   */
  private async resolveTargets(endpoint: WebhookEndpointRow, body: TriggerBody): Promise<Record<string, string[]>> {
    // UUIDs alone are checked by run admission's own statement, which writes nothing when one is unknown.
    if (body.providerRefs.length === 0)
      return Object.fromEntries(Object.entries(body.targets).map(([role, ids]) => [role, [...new Set(ids)]]));
    const uuids = [...new Set(Object.values(body.targets).flat())];
    const [liveIds, byProviderRef] = await Promise.all([
      uuids.length === 0 ? new Set<string>() : this.devices.liveIds(await this.readableOrgIds(endpoint.org_id), uuids),
      body.providerRefs.length === 0 ? new Map<string, string>() : this.devices.byProviderRefs(endpoint.org_id, body.providerRefs),
    ]);
    const resolved = resolveTargets(body, { liveIds, byProviderRef });
    if (!resolved.ok) throw bodyRefusal(resolved);
    return resolved.targets;
  }

  /**
   * Turns what went wrong into a refusal, or undefined for a fault (answered 500, journal left alone).
   * `idempotencyKey` is given once the request is past the idempotency step: a key already accepted then
   * makes any refusal the duplicate's 409, as if it had been looked up there (a query only on this path).
   */
  private async asRefusal(error: unknown, endpointId: string, idempotencyKey: string | null): Promise<Refusal | undefined> {
    const refusal = this.refusalOf(error);
    if (idempotencyKey === null || !(refusal || error instanceof AdmissionGateClosed)) return refusal;
    const existing = await this.repo.acceptedByKey(endpointId, idempotencyKey);
    return existing ? duplicate(existing) : refusal;
  }

  private refusalOf(error: unknown): Refusal | undefined {
    if (error instanceof Refusal) return error;
    if (error instanceof Problem) {
      // Admission speaks for every trigger path; for a webhook a flow that is gone is the endpoint's configuration problem.
      const problem = error.code === 'flow_not_found' ? new Problem(422, error.code, error.message, error.extensions) : error;
      return new Refusal(problem, error.code, true, true);
    }
    return undefined;
  }

  private async recordRefusal(
    request: TriggerRequest,
    endpoint: WebhookEndpointRow,
    refusal: Refusal,
    facts: { deliveryId: string; bodyHash: string | null; idempotencyKey: string | null; started: number },
  ): Promise<void> {
    const isDuplicate = refusal.problem.code === 'duplicate_delivery';
    if (refusal.journal) {
      await this.repo.insertRejected({
        id: facts.deliveryId,
        webhook_endpoint_id: endpoint.id,
        idempotency_key: facts.idempotencyKey,
        signature_valid: refusal.signatureValid,
        source_ip: request.clientIp.slice(0, 45),
        request_body_hash: facts.bodyHash,
        response_status: refusal.problem.status,
        error_detail: refusal.problem.message,
        run_ids: [],
        processing_duration_ms: Math.round(performance.now() - facts.started),
      });
    }
    await this.recordAudit(request, endpoint, 'webhook.rejected', 'failure', {
      reason: refusal.reason,
      status: refusal.problem.status,
      code: refusal.problem.code,
      error: refusal.problem.message,
      delivery_id: refusal.journal ? facts.deliveryId : null,
      ...(isDuplicate ? { duplicate_of: refusal.problem.extensions.delivery_id } : {}),
    });
    const runIds = isDuplicate && typeof refusal.problem.extensions.run_id === 'string' ? [refusal.problem.extensions.run_id] : [];
    this.logOutcome(
      endpoint,
      facts.deliveryId,
      runIds,
      request.clientIp,
      isDuplicate ? 'duplicate' : 'rejected',
      refusal.problem.status,
      refusal.reason,
    );
  }

  private recordAudit(
    request: TriggerRequest,
    endpoint: WebhookEndpointRow,
    eventType: string,
    outcome: 'success' | 'failure',
    details: Record<string, unknown>,
  ): Promise<string> {
    return this.audit.record(request.audit, this.auditEvent(request, endpoint, eventType, outcome, details));
  }

  private auditEntry(
    request: TriggerRequest,
    endpoint: WebhookEndpointRow,
    eventType: string,
    outcome: 'success' | 'failure',
    details: Record<string, unknown>,
  ): AuditRow {
    return this.audit.entry(request.audit, this.auditEvent(request, endpoint, eventType, outcome, details));
  }

  private auditEvent(
    request: TriggerRequest,
    endpoint: WebhookEndpointRow,
    eventType: string,
    outcome: 'success' | 'failure',
    details: Record<string, unknown>,
  ): AuditEvent {
    return {
      eventType,
      action: 'webhook:receive',
      resourceType: 'webhook_endpoint',
      resourceId: endpoint.id,
      outcome,
      actor: WEBHOOK_ACTOR,
      orgId: endpoint.org_id,
      details: {
        ...details,
        webhook_endpoint_id: endpoint.id,
        source_ip_masked: maskSourceIp(request.clientIp),
        trigger_source: 'webhook',
      },
    };
  }

  private logOutcome(
    endpoint: WebhookEndpointRow,
    deliveryId: string,
    runIds: string[],
    sourceIp: string,
    outcome: Outcome,
    status: number,
    reason?: string,
  ): void {
    this.log.info(
      {
        webhook_endpoint_id: endpoint.id,
        delivery_id: deliveryId,
        correlation_id: deliveryId,
        run_ids: runIds,
        source_ip: sourceIp,
        outcome,
        status,
        ...(reason ? { reason } : {}),
      },
      `webhook ${outcome}`,
    );
  }
}

function bodyRefusal(failure: TriggerBodyFailure): Refusal {
  return new Refusal(new Problem(failure.status, failure.code, failure.detail, failure.extensions), failure.code, true, true);
}

function invalidPayload(message: string): Problem {
  return new Problem(422, 'invalid_payload', message);
}

function duplicate(existing: { id: string; run_ids: string[] }): Refusal {
  return new Refusal(
    new Problem(409, 'duplicate_delivery', 'This idempotency key was already accepted for this endpoint.', {
      delivery_id: existing.id,
      run_id: existing.run_ids[0] ?? null,
    }),
    'duplicate',
    true,
    true,
  );
}
