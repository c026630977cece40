import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuditContext } from '../../../audit/audit-context.js';
import { singleHeader } from '../../../../shared/webhooks/signing.js';
import type { TriggerBody } from '../../../../shared/webhooks/trigger-body.js';
import type { WebhookEndpointRow } from '../webhooks-repo.js';

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

export const IDEMPOTENCY_KEY_MAX = 255;

/**
 * One trigger request as the steps learn about it, each step adding what the next ones need. A delivery
 * begins once the endpoint is known: its id, and the start of its `processing_duration_ms`.
 */
export class TriggerContext {
  /** `X-Idempotency-Key` as sent: absent (undefined), repeated (null), or one value. */
  readonly idempotencyHeader: string | null | undefined;
  /** The key if the journal's column can hold it: journaled with every refusal, and with the accepted delivery. */
  readonly idempotencyKey: string | null;
  /** The rate the path token had when this instance last looked it up (undefined: a token new to it). */
  knownRate: number | undefined;
  deliveryId = '';
  started = 0;
  raw: Buffer | undefined;
  bodyHash: string | null = null;
  /** The endpoint's signing key or expected bearer token. */
  key = '';
  /** Past the idempotency step: a key already accepted then makes any later refusal the duplicate it is. */
  keyChecked = false;
  /** A delivery-limit token was taken: a duplicate found later gives it back. */
  deliveryCharged = false;
  body: TriggerBody | undefined;
  targets: Record<string, string[]> | undefined;
  /** The accepted delivery wrote the endpoint's `last_triggered_at`. */
  touched = false;
  envelope: TriggerEnvelope | undefined;
  #endpoint: WebhookEndpointRow | undefined;
  #sourceIpMasked: string | undefined;

  constructor(
    readonly request: TriggerRequest,
    private readonly maskSourceIp: (ip: string) => string,
  ) {
    this.idempotencyHeader = singleHeader(request.headers['x-idempotency-key']);
    const header = this.idempotencyHeader;
    this.idempotencyKey = typeof header === 'string' && header.length > 0 && header.length <= IDEMPOTENCY_KEY_MAX ? header : null;
  }

  get hasEndpoint(): boolean {
    return this.#endpoint !== undefined;
  }

  /** The endpoint; asked for only by the steps after its lookup. */
  get endpoint(): WebhookEndpointRow {
    if (!this.#endpoint) throw new TypeError('the trigger asked for its endpoint before looking it up');
    return this.#endpoint;
  }

  /** The endpoint is known: its delivery begins. */
  begin(endpoint: WebhookEndpointRow): void {
    this.#endpoint = endpoint;
    this.deliveryId = randomUUID();
    this.started = performance.now();
  }

  /** `source_ip_masked` of the run's trigger details and of the audit entries. */
  get sourceIpMasked(): string {
    return (this.#sourceIpMasked ??= this.maskSourceIp(this.request.clientIp));
  }

  get durationMs(): number {
    return Math.round(performance.now() - this.started);
  }
}
