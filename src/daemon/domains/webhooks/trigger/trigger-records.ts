import type { AuditRow } from '../../../audit/audit-repo.js';
import type { AuditEvent, AuditWriter } from '../../../audit/audit-writer.js';
import { isDatabaseUnavailable } from '../../../db/database-errors.js';
import type { Logger } from '../../../logging/logger.js';
import type { NewDelivery, WebhooksRepo } from '../webhooks-repo.js';
import type { Refusal } from './refusals.js';
import type { TriggerContext } from './trigger-context.js';

/** The actor of every trigger entry: a public route has no user. */
export const WEBHOOK_ACTOR = { sub: 'system:webhook', username: 'system:webhook' } as const;

type Outcome = 'accepted' | 'rejected' | 'duplicate' | 'error';
type EntryOutcome = 'success' | 'failure';

/**
 * What the trigger keeps of each delivery once its endpoint is known: the journal row of a refusal, the
 * `webhook.rejected` entry, and one log line per outcome (the spec's fields). The accepted delivery's row
 * and `webhook.triggered` entry are written by run admission's statement (`entry`, `delivery`).
 */
export class TriggerRecords {
  constructor(
    private readonly repo: WebhooksRepo,
    private readonly audit: AuditWriter,
    private readonly log: Logger,
  ) {}

  /** The journal row of this delivery, answered `status`. */
  delivery(t: TriggerContext, status: number, signatureValid: boolean, errorDetail: string | null, runIds: string[]): NewDelivery {
    return {
      id: t.deliveryId,
      webhook_endpoint_id: t.endpoint.id,
      idempotency_key: t.idempotencyKey,
      signature_valid: signatureValid,
      source_ip: t.request.clientIp.slice(0, 45),
      request_body_hash: t.bodyHash,
      response_status: status,
      error_detail: errorDetail,
      run_ids: runIds,
      processing_duration_ms: t.durationMs,
    };
  }

  /** An audit entry on the endpoint, for a statement that writes it itself. */
  entry(t: TriggerContext, eventType: string, outcome: EntryOutcome, details: Record<string, unknown>): AuditRow {
    return this.audit.entry(t.request.audit, this.#event(t, eventType, outcome, details));
  }

  accepted(t: TriggerContext): void {
    this.#logOutcome(t, 'accepted', 202, [t.envelope!.triggered_runs[0]!.run_id]);
  }

  /** A fault, not a refusal: answered 500 (503 for the database), and the journal left alone. */
  failed(t: TriggerContext, error: unknown): void {
    this.#logOutcome(t, 'error', isDatabaseUnavailable(error) ? 503 : 500, []);
  }

  async refused(t: TriggerContext, refusal: Refusal): Promise<void> {
    const { problem, row } = refusal;
    const isDuplicate = problem.code === 'duplicate_delivery';
    if (row.journal) await this.repo.insertRejected(this.delivery(t, problem.status, row.signatureValid, problem.message, []));
    if (row.audit) {
      const details = {
        reason: refusal.reason,
        status: problem.status,
        code: problem.code,
        error: problem.message,
        delivery_id: row.journal ? t.deliveryId : null,
        ...(isDuplicate ? { duplicate_of: problem.extensions.delivery_id } : {}),
      };
      await this.audit.record(t.request.audit, this.#event(t, 'webhook.rejected', 'failure', details));
    }
    const runId = problem.extensions.run_id;
    const runIds = isDuplicate && typeof runId === 'string' ? [runId] : [];
    this.#logOutcome(t, isDuplicate ? 'duplicate' : 'rejected', problem.status, runIds, refusal.reason);
  }

  #event(t: TriggerContext, eventType: string, outcome: EntryOutcome, details: Record<string, unknown>): AuditEvent {
    const endpoint = t.endpoint;
    return {
      eventType,
      action: 'webhook:receive',
      resourceType: 'webhook_endpoint',
      resourceId: endpoint.id,
      outcome,
      actor: WEBHOOK_ACTOR,
      orgId: endpoint.org_id,
      details: { ...details, webhook_endpoint_id: endpoint.id, source_ip_masked: t.sourceIpMasked, trigger_source: 'webhook' },
    };
  }

  #logOutcome(t: TriggerContext, outcome: Outcome, status: number, runIds: string[], reason?: string): void {
    this.log.info(
      {
        webhook_endpoint_id: t.endpoint.id,
        delivery_id: t.deliveryId,
        correlation_id: t.deliveryId,
        run_ids: runIds,
        source_ip: t.request.clientIp,
        outcome,
        status,
        ...(reason ? { reason } : {}),
      },
      `webhook ${outcome}`,
    );
  }
}
