import type { Knex } from 'knex';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { DestinationKind } from '../../../shared/api/notifications.js';
import type { AttemptResult } from '../../../shared/notifications/attempt-result.js';
import type { NotificationPayload } from '../../../shared/notifications/message.js';

/** A claimed message with what sending it needs. */
export interface ClaimedMessage {
  readonly id: string;
  readonly org_id: string;
  readonly destination_id: string;
  readonly event: string;
  readonly payload_json: NotificationPayload;
  /** This attempt's number (1 for the first). */
  readonly attempts: number;
  readonly kind: DestinationKind;
  readonly config_json: Record<string, unknown>;
  /**
   * Why the message is not sent, decided when it was claimed: its destination was deleted or disabled
   * after the message was written, or its organization was deactivated (nobody in it can see the
   * message's run any more). Null when it is sent.
   */
  readonly refused: 'destination_unavailable' | 'organization_inactive' | null;
}

export interface AttemptRecord {
  readonly instance: string;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly result: AttemptResult;
  /** Where the message goes next: `delivered`, `failed`, or `pending` again at `retryAt`. */
  readonly status: 'delivered' | 'failed' | 'pending';
  readonly retryAt?: Date | undefined;
}

/** `notification_outbox` and `notification_attempts`: the senders' side. */
export class OutboxRepo {
  constructor(private readonly knex: Knex) {}

  /**
   * Claims up to `limit` due messages for this sender, in one statement: pending ones whose time has come
   * and sending ones whose lease ran out (their sender died mid-send: at-least-once). `FOR UPDATE SKIP
   * LOCKED` lets every instance claim at once without two taking the same row; the lease keeps a claimed
   * row from being taken again while it is sent.
   */
  async claim(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedMessage[]> {
    const result = await this.knex.raw(
      `WITH due AS (
         SELECT id FROM notification_outbox
          WHERE (status = 'pending' AND next_attempt_at <= :now) OR (status = 'sending' AND lease_expires_at <= :now)
          ORDER BY next_attempt_at, id
          LIMIT :limit
          FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE notification_outbox o SET status = 'sending', attempts = o.attempts + 1, lease_expires_at = :lease
           FROM due WHERE o.id = due.id
         RETURNING o.id, o.org_id, o.destination_id, o.event, o.payload_json, o.attempts
       )
       SELECT c.*, d.kind, d.config_json,
              CASE WHEN NOT g.is_active THEN 'organization_inactive'
                   WHEN d.deleted_at IS NOT NULL OR NOT d.enabled THEN 'destination_unavailable' END AS refused
         FROM claimed c
         JOIN notification_destinations d ON d.id = c.destination_id
         JOIN organizations g ON g.id = c.org_id`,
      { now, lease: leaseUntil, limit },
    );
    return (result.rows ?? result) as ClaimedMessage[];
  }

  /** Records the attempt and moves the message on, in one transaction; nothing when another sender took it over (its lease ran out). */
  async finish(message: ClaimedMessage, record: AttemptRecord): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      const changed = await trx('notification_outbox')
        .where({ id: message.id, status: 'sending', attempts: message.attempts })
        .update({
          status: record.status,
          lease_expires_at: null,
          next_attempt_at: record.retryAt ?? trx.raw('next_attempt_at'),
          last_status_code: record.result.statusCode,
          last_error:
            record.result.outcome === 'delivered' ? null : [record.result.reason, record.result.detail].filter(Boolean).join(': '),
          finished_at: record.status === 'pending' ? null : record.finishedAt,
        });
      if (changed === 0) return false;
      await trx('notification_attempts').insert({
        outbox_id: message.id,
        attempt: message.attempts,
        instance: record.instance,
        started_at: record.startedAt,
        finished_at: record.finishedAt,
        outcome: record.result.outcome,
        status_code: record.result.statusCode,
        reason: record.result.reason,
        detail: record.result.detail,
      });
      return true;
    });
  }

  /** The earliest time a pending or sending message becomes due (the loop sleeps until then). */
  async earliestDue(): Promise<Date | null> {
    const row = await this.knex('notification_outbox')
      .whereIn('status', ['pending', 'sending'])
      .select(this.knex.raw(`min(CASE WHEN status = 'pending' THEN next_attempt_at ELSE lease_expires_at END) AS at`))
      .first();
    return (row as { at: Date | null } | undefined)?.at ?? null;
  }

  /** Messages delivered or given up before `before`, their attempts with them (cascade), in batches. */
  deleteFinishedBefore(before: Date, batch: number): Promise<number> {
    return deleteInBatches(
      this.knex,
      'notification_outbox',
      { sql: `status IN ('delivered', 'failed') AND finished_at < ?`, bindings: [before] },
      batch,
    );
  }
}
