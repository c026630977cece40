import { principalFromWire, principalToWire, type Principal } from '../../../shared/auth/principal.js';
import { authProblems } from '../auth-problems.js';
import { digestOf, randomSecret } from '../secrets.js';
import type { TicketsRepo } from './tickets-repo.js';

export const MAX_ACTIVE_TICKETS = 10;

export interface RedeemedTicket {
  readonly principal: Principal;
  readonly authMethod: string;
  readonly orgId: string | null;
  /** The personal access token the ticket was obtained with. */
  readonly pat?: { readonly tokenId: string; readonly orgId: string; readonly userId: string };
}

export interface IssuedTicket {
  readonly ticket: string;
  readonly expiresAt: Date;
}

/**
 * Single-use stream tickets: 256 random bits, URL-safe, kept as a digest in the database so any
 * instance can redeem them; at most ten active per user, the oldest evicted by the next.
 */
export class TicketsService {
  constructor(
    private readonly repo: TicketsRepo,
    private readonly ttlSeconds: number,
  ) {}

  /**
   * `patId`: the personal access token the caller presented, whose revocation then cuts the ticket too;
   * with its organization and user, the ticket acts as the token would (only in that organization).
   */
  async issue(
    principal: Principal,
    context: { authMethod: string; orgId?: string | undefined; patId?: string | undefined; patUserId?: string | undefined },
  ): Promise<IssuedTicket> {
    const ticket = randomSecret(32);
    await this.repo.purgeDead(principal.sub);
    const expiresAt = await this.repo.insert({
      ticket_digest: digestOf(ticket),
      user_sub: principal.sub,
      pat_id: context.patId ?? null,
      principal_json: {
        ...principalToWire(principal),
        auth_method: context.authMethod,
        org_id: context.orgId ?? null,
        pat_user_id: context.patUserId ?? null,
      },
      ttlSeconds: this.ttlSeconds,
    });
    await this.repo.evictBeyond(principal.sub, MAX_ACTIVE_TICKETS);
    return { ticket, expiresAt };
  }

  /** The principal the ticket stands for (and the personal access token it was obtained with); the ticket is spent. */
  async redeem(ticket: string | undefined): Promise<RedeemedTicket> {
    if (!ticket || ticket.length > 128) throw authProblems.invalidTicket();
    const consumed = await this.repo.consume(digestOf(ticket));
    if (!consumed) throw authProblems.invalidTicket();
    const { wire, patId } = consumed;
    const orgId = (wire.org_id as string | null) ?? null;
    const patUserId = (wire.pat_user_id as string | null | undefined) ?? null;
    return {
      principal: principalFromWire(wire),
      authMethod: String(wire.auth_method),
      orgId,
      ...(patId && orgId && patUserId ? { pat: { tokenId: patId, orgId, userId: patUserId } } : {}),
    };
  }
}
