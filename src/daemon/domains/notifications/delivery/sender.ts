import type { Database, Listening } from '../../../db/database.js';
import { NOTIFICATIONS_CHANNEL } from '../../../db/channels.js';
import type { Logger } from '../../../logging/logger.js';
import type { ClaimedMessage, OutboxRepo } from '../outbox-repo.js';
import type { AttemptResult } from '../../../../shared/notifications/attempt-result.js';
import { backoffMs, type BackoffSettings } from './backoff.js';
import type { NotificationTransport } from './transport.js';

const REFUSALS: Record<NonNullable<ClaimedMessage['refused']>, string> = {
  destination_unavailable: 'the destination was deleted or disabled',
  organization_inactive: "the message's organization was deactivated",
};

export interface SenderSettings extends BackoffSettings {
  /** SERVICE_NOTIFICATION_MAX_ATTEMPTS: attempts before a transient failure is given up. */
  readonly maxAttempts: number;
  /** SERVICE_NOTIFICATION_POLL_SECONDS: the longest the loop sleeps without a notification. */
  readonly pollSeconds: number;
  /** How long a claimed message is this sender's before another may take it over (well above a send's time limit). */
  readonly leaseMs: number;
  /** This instance's name in the attempts it records. */
  readonly instance: string;
}

export interface PassSummary {
  claimed: number;
  delivered: number;
  retried: number;
  failed: number;
}

/** Messages claimed per statement. */
const BATCH = 20;

/**
 * Sends the outbox. Every instance runs one: a pass claims due messages (SKIP LOCKED, so instances share
 * the work and never send one message twice at once), sends each, and records the attempt. Woken at once by
 * `svc_notifications` (the outbox triggers' NOTIFY, this instance's own database included), by the next
 * retry time it knows of, and at least every poll interval; the maintenance job `notifications.deliver_due`
 * runs the same pass, a backstop where the loop is off. `now` and `random` are injectable (tests).
 */
export class NotificationSender {
  #timer: NodeJS.Timeout | undefined;
  #listening: Listening | undefined;
  #stopped = true;
  #pass: Promise<unknown> | undefined;
  #again = false;

  constructor(
    private readonly outbox: OutboxRepo,
    private readonly transport: NotificationTransport,
    private readonly log: Logger,
    private readonly settings: SenderSettings,
    private readonly now: () => Date,
    private readonly random: () => number,
  ) {}

  start(db: Pick<Database, 'listen'>): void {
    this.#stopped = false;
    this.#listening = db.listen(NOTIFICATIONS_CHANNEL, () => this.wake());
    this.wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#listening?.stop();
    await this.#pass;
  }

  /** Runs a pass now (after the one under way, if any). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#pass) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#pass = this.#loop().finally(() => (this.#pass = undefined));
  }

  async #loop(): Promise<void> {
    let wait = this.settings.pollSeconds * 1000;
    do {
      this.#again = false;
      try {
        await this.deliverDue();
        const earliest = await this.outbox.earliestDue();
        if (earliest) wait = Math.max(0, Math.min(wait, earliest.getTime() - this.now().getTime()));
      } catch (error) {
        this.log.warn({ err: error }, 'the notification pass failed; trying again next interval');
      }
    } while (this.#again && !this.#stopped);
    if (this.#stopped) return;
    this.#timer = setTimeout(() => this.wake(), wait);
    this.#timer.unref();
  }

  /** Claims and sends what is due until nothing is; the counts of what happened. */
  async deliverDue(): Promise<PassSummary> {
    const summary: PassSummary = { claimed: 0, delivered: 0, retried: 0, failed: 0 };
    for (;;) {
      const now = this.now();
      const claimed = await this.outbox.claim(now, new Date(now.getTime() + this.settings.leaseMs), BATCH);
      summary.claimed += claimed.length;
      const statuses = await Promise.all(claimed.map((message) => this.#send(message)));
      for (const status of statuses) if (status) summary[status] += 1;
      if (claimed.length < BATCH) return summary;
    }
  }

  async #send(message: ClaimedMessage): Promise<keyof Omit<PassSummary, 'claimed'> | undefined> {
    const startedAt = this.now();
    const result: AttemptResult =
      message.refused === null
        ? await this.transport.send(
            { orgId: message.org_id, kind: message.kind, config: message.config_json },
            message.payload_json,
            message.id,
          )
        : { outcome: 'permanent', statusCode: null, reason: message.refused, detail: REFUSALS[message.refused] };
    const finishedAt = this.now();
    const retry = result.outcome === 'transient' && message.attempts < this.settings.maxAttempts;
    const status = result.outcome === 'delivered' ? 'delivered' : retry ? 'pending' : 'failed';
    const retryAt = retry ? new Date(finishedAt.getTime() + backoffMs(message.attempts, this.settings, this.random)) : undefined;
    const recorded = await this.outbox.finish(message, {
      instance: this.settings.instance,
      startedAt,
      finishedAt,
      result,
      status,
      retryAt,
    });
    if (!recorded) return undefined;
    if (status === 'failed')
      this.log.warn(
        { outbox_id: message.id, event: message.event, reason: result.reason, status_code: result.statusCode },
        'notification given up',
      );
    return status === 'pending' ? 'retried' : status;
  }
}
