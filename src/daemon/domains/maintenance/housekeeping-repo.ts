import type { Knex } from 'knex';
import { deleteInBatches } from '../../db/batched-delete.js';

/**
 * The expiry and retention deletes of the domains built before the maintenance pass existed (stream
 * tickets, worker env keys, run tokens, webhook deliveries, the audit log), each in batches of `batch` rows, one
 * short transaction per batch. Domains built since own their jobs (docs/maintenance.md).
 */
export class HousekeepingRepo {
  constructor(
    private readonly knex: Knex,
    private readonly batch: number,
  ) {}

  /** Stream tickets that can no longer be redeemed: consumed, or expired at `now`. */
  deleteDeadTickets(now: Date): Promise<number> {
    return this.delete('stream_tickets', 'consumed_at IS NOT NULL OR expires_at <= ?', [now]);
  }

  /** Worker env keys whose `expires_at` has passed at `now` (no value may be sealed to them any more). */
  deleteExpiredEnvKeys(now: Date): Promise<number> {
    return this.delete('worker_env_keys', 'expires_at <= ?', [now]);
  }

  /** Run tokens (IaC state, registry) past their `expires_at` at `now`: they authenticate nothing any more. */
  deleteExpiredRunTokens(now: Date): Promise<number> {
    return this.delete('run_tokens', 'expires_at <= ?', [now]);
  }

  /** Webhook delivery records created before `before` (their idempotency keys with them). */
  deleteDeliveriesBefore(before: Date): Promise<number> {
    return this.delete('webhook_deliveries', 'created_at < ?', [before]);
  }

  /** Audit entries stamped before `before`. */
  deleteAuditBefore(before: Date): Promise<number> {
    return this.delete('audit_logs', 'ts < ?', [before]);
  }

  private delete(table: string, sql: string, bindings: readonly Knex.Value[]): Promise<number> {
    return deleteInBatches(this.knex, table, { sql, bindings }, this.batch);
  }
}
