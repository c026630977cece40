import type { Knex } from 'knex';
import { boundedMemo } from '../../shared/bounded-memo.js';
import { maskAddress } from '../../shared/net/mask-address.js';
import type { AuditContext } from './audit-context.js';
import type { AuditRepo, AuditRow } from './audit-repo.js';

/** What a feature says about an event; who did it, from where and in which organization comes from the request. */
export interface AuditEvent {
  readonly eventType: string;
  readonly action?: string;
  readonly resourceType?: string;
  readonly resourceId?: string;
  readonly outcome?: 'success' | 'failure' | 'denied';
  readonly details?: Record<string, unknown>;
  /** Overrides the actor of the request context (an `auth.failed` entry is owned by the token's owner). */
  readonly actor?: { readonly sub: string; readonly username?: string };
  /** Overrides the organization of the request context. */
  readonly orgId?: string | null;
}

/**
 * The one way to write an audit entry: the request's audit context fills in actor, client and
 * organization. `context` is undefined only for work no request started (start-up, timers).
 */
export class AuditWriter {
  /**
   * Masked addresses, remembered per address: every entry of a public route (two per accepted webhook
   * trigger) masks its caller, and the parse is most of that work.
   */
  readonly #masked = boundedMemo(maskAddress, 1024);

  constructor(private readonly repo: AuditRepo) {}

  async record(context: AuditContext | undefined, event: AuditEvent, trx?: Knex.Transaction): Promise<string> {
    return this.repo.insert(this.entry(context, event), trx);
  }

  /**
   * The row `record` would write, for a repository that writes it inside a statement of its own (run
   * admission writes the run and its `run.started` entry in one statement).
   */
  entry(context: AuditContext | undefined, event: AuditEvent): AuditRow {
    const details: Record<string, unknown> = { ...event.details };
    if (context) {
      details.request_id = context.requestId;
      details.route = context.route;
      if (context.authMethod) details.auth_method = context.authMethod;
      if (context.runToken) {
        details.run_token_id = context.runToken.tokenId;
        details.run_id = context.runToken.runId;
        details.step_id = context.runToken.stepId;
      }
    }
    return {
      org_id: event.orgId !== undefined ? event.orgId : (context?.orgId ?? null),
      event_type: event.eventType,
      actor_sub: event.actor?.sub ?? context?.subject ?? null,
      actor_username: event.actor ? (event.actor.username ?? null) : (context?.username ?? null),
      resource_type: event.resourceType ?? null,
      resource_id: event.resourceId ?? null,
      action: event.action ?? null,
      outcome: event.outcome ?? null,
      details_json: details,
      // Callers of public routes are anonymous: their address is kept only to its network.
      client_ip: context ? (context.authMethod === 'public' ? this.#masked(context.clientIp) : context.clientIp) : null,
      user_agent: context?.userAgent ?? null,
    };
  }
}
