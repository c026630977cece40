import type { DestinationKind } from '../../../../shared/api/notifications.js';
import type { AttemptResult } from '../../../../shared/notifications/attempt-result.js';
import { NotificationDelivery, type DeliveryOptions } from '../../../../shared/notifications/delivery.js';
import type { NotificationPayload } from '../../../../shared/notifications/message.js';
import type { OutboundSend } from '../../../../shared/notifications/outbound.js';
import { SecretBackendError, SecretReferenceError, type SecretResolver } from '../../secrets/secret-resolver.js';
import { secretRefsOf } from '../destination-config.js';

export type TransportOptions = Omit<DeliveryOptions, 'outbound'>;

/** One destination's settings, as stored (references, never values). */
export interface SendTarget {
  readonly orgId: string;
  readonly kind: DestinationKind;
  readonly config: Readonly<Record<string, unknown>>;
}

/**
 * Sends one message to one destination and says how it went, never throwing for the receiver's or the
 * network's failures: the secret references are resolved in the destination's organization at send time
 * (a reference that no longer resolves is permanent, a failing backend transient), then the shared
 * delivery sends (src/shared/notifications/delivery.ts, which the worker's `flow.notify` sends with too).
 */
export class NotificationTransport {
  readonly #delivery: NotificationDelivery;

  constructor(
    private readonly secrets: SecretResolver,
    outbound: OutboundSend,
    options: TransportOptions,
  ) {
    this.#delivery = new NotificationDelivery({ ...options, outbound });
  }

  async send(target: SendTarget, payload: NotificationPayload, key: string): Promise<AttemptResult> {
    const resolved = await this.#resolve(target);
    if (resolved.failed) return resolved.failed;
    return this.#delivery.send({ kind: target.kind, config: target.config, credentials: resolved.values }, payload, key);
  }

  async #resolve(target: SendTarget): Promise<{ values: Record<string, string>; failed?: undefined } | { failed: AttemptResult }> {
    const values: Record<string, string> = {};
    for (const [field, reference] of Object.entries(secretRefsOf(target.kind, target.config))) {
      try {
        values[field] = await this.secrets.resolveReference(target.orgId, reference);
      } catch (error) {
        if (error instanceof SecretReferenceError)
          return {
            failed: { outcome: 'permanent', statusCode: null, reason: 'secret_reference', detail: `config.${field}: ${error.problem}` },
          };
        if (error instanceof SecretBackendError)
          return { failed: { outcome: 'transient', statusCode: null, reason: 'secret_backend', detail: 'the secret backend failed' } };
        throw error;
      }
    }
    return { values };
  }
}
