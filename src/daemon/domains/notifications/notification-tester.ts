import { randomUUID } from 'node:crypto';
import type { DestinationKind, TestAnswer } from '../../../shared/api/notifications.js';
import type { NotificationTransport } from './delivery/transport.js';

/** `test` and `test-config`: one real message (event `notification.test`), sent now, outside the outbox, and the receiver's answer. */
export class NotificationTester {
  constructor(
    private readonly transport: NotificationTransport,
    private readonly now: () => Date,
  ) {}

  async send(
    orgId: string,
    kind: DestinationKind,
    config: Readonly<Record<string, unknown>>,
    text: { title?: string | undefined; message?: string | undefined },
  ): Promise<TestAnswer> {
    const key = randomUUID();
    const payload = {
      event: 'notification.test',
      occurred_at: this.now().toISOString(),
      org_id: orgId,
      ...(text.title ? { title: text.title } : {}),
      message: text.message || 'A test message from svc: this destination is reachable.',
    };
    const result = await this.transport.send({ orgId, kind, config }, payload, key);
    return {
      delivered: result.outcome === 'delivered',
      outcome: result.outcome,
      status_code: result.statusCode,
      reason: result.reason,
      detail: result.detail,
      idempotency_key: key,
    };
  }
}
