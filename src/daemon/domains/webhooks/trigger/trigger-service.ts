import type { AuditWriter } from '../../../audit/audit-writer.js';
import type { Logger } from '../../../logging/logger.js';
import { maskSourceIp } from '../../../webhooks/source-allow-list.js';
import { boundedMemo } from '../../../../shared/bounded-memo.js';
import { AdmissionGateClosed } from '../../runs/run-admission.js';
import { AllowListCache } from './allow-list-cache.js';
import { Refusal, refuse, refusalOf } from './refusals.js';
import { TouchThrottle } from './touch-throttle.js';
import { TriggerContext, type TriggerEnvelope, type TriggerRequest } from './trigger-context.js';
import { TriggerRecords } from './trigger-records.js';
import { runSteps, triggerSteps, type TriggerStep, type TriggerStepParts } from './trigger-steps.js';

export type { TriggerEnvelope, TriggerRequest } from './trigger-context.js';

/** What the trigger's steps need from outside, and where its records go. */
export interface WebhookTriggerParts extends Omit<TriggerStepParts, 'allowLists' | 'touches' | 'records'> {
  readonly audit: AuditWriter;
  readonly log: Logger;
}

/** Masking parses the address, a few microseconds, twice per accepted trigger: remembered per address. */
const MASKS_KEPT = 1024;

/**
 * `POST /hooks/{path_token}`: its steps (trigger-steps.ts) run in the spec's order; then the accepted
 * delivery is logged, or a refusal answered and, once the endpoint is known, recorded as the refusal
 * table says (refusals.ts). A repeated key is detected by the accepted delivery's write, so a refusal
 * after the idempotency step looks the key up before it is answered: a key already accepted makes it the
 * 409 it would have been at that step. The endpoint, its built-in secret and the flow come from caches
 * emptied by every change. docs/webhooks.md has the table.
 */
export class WebhookTrigger {
  readonly #steps: readonly TriggerStep[];
  readonly #records: TriggerRecords;
  readonly #allowLists = new AllowListCache();
  readonly #touches = new TouchThrottle();
  readonly #maskSourceIp = boundedMemo(maskSourceIp, MASKS_KEPT);

  constructor(private readonly parts: WebhookTriggerParts) {
    this.#records = new TriggerRecords(parts.repo, parts.audit, parts.log);
    this.#steps = triggerSteps({ ...parts, allowLists: this.#allowLists, touches: this.#touches, records: this.#records });
  }

  /** An endpoint changed or went away: its limits, compiled allow-list and `last_triggered_at` throttle start afresh. */
  forget(endpointId: string): void {
    this.parts.gate.forget(endpointId);
    this.#allowLists.delete(endpointId);
    this.#touches.forget(endpointId);
  }

  /**
   * The steps that need no query are run synchronously: a request they refuse is answered as an already
   * rejected promise, crossing no async frame (each would rethrow it, most of a refusal's cost).
   */
  trigger(request: TriggerRequest): Promise<TriggerEnvelope> {
    const t = new TriggerContext(request, this.#maskSourceIp);
    let steps: Promise<void> | undefined;
    try {
      steps = runSteps(this.#steps, t);
    } catch (error) {
      return Promise.reject(answerOf(error));
    }
    return (steps ?? Promise.resolve()).then(
      () => this.#accepted(t),
      (error: unknown) => this.#refused(t, error),
    );
  }

  #accepted(t: TriggerContext): TriggerEnvelope {
    this.#records.accepted(t);
    return t.envelope!;
  }

  async #refused(t: TriggerContext, error: unknown): Promise<never> {
    // Before the endpoint is known there is nothing to record the refusal against.
    if (!t.hasEndpoint) throw answerOf(error);
    const refusal = await this.#asRefusal(t, error);
    if (!refusal) {
      this.#records.failed(t, error);
      throw error;
    }
    // The spec meters only new deliveries.
    if (refusal.reason === 'duplicate' && t.deliveryCharged) this.parts.gate.returnDelivery(t.endpoint.id);
    await this.#records.refused(t, refusal);
    throw refusal.problem;
  }

  /** The refusal an error is (undefined: a fault); past the idempotency step, the duplicate it may be instead. */
  async #asRefusal(t: TriggerContext, error: unknown): Promise<Refusal | undefined> {
    const refusal = refusalOf(error);
    if (!t.keyChecked || !(refusal || error instanceof AdmissionGateClosed)) return refusal;
    const existing = await this.parts.repo.acceptedByKey(t.endpoint.id, t.idempotencyKey!);
    if (!existing) return refusal;
    return refuse('duplicate', 'This idempotency key was already accepted for this endpoint.', {
      delivery_id: existing.id,
      run_id: existing.run_ids[0] ?? null,
    });
  }
}

/** What the request path answers for a step's error: a refusal's Problem, anything else as it is. */
function answerOf(error: unknown): unknown {
  return error instanceof Refusal ? error.problem : error;
}
