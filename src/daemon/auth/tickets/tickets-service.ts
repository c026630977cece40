import { principalFromWire, principalToWire, type Principal } from '../../../shared/auth/principal.js';
import { authProblems } from '../auth-problems.js';
import { digestOf, randomSecret } from '../secrets.js';
import type { TicketsRepo } from './tickets-repo.js';

export const MAX_ACTIVE_TICKETS = 10;

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

  /** `patId`: the personal access token the caller presented, whose revocation then cuts the ticket too. */
  async issue(
    principal: Principal,
    context: { authMethod: string; orgId?: string | undefined; patId?: string | undefined },
  ): Promise<IssuedTicket> {
    const ticket = randomSecret(32);
    await this.repo.purgeDead(principal.sub);
    const expiresAt = await this.repo.insert({
      ticket_digest: digestOf(ticket),
      user_sub: principal.sub,
      pat_id: context.patId ?? null,
      principal_json: { ...principalToWire(principal), auth_method: context.authMethod, org_id: context.orgId ?? null },
      ttlSeconds: this.ttlSeconds,
    });
    await this.repo.evictBeyond(principal.sub, MAX_ACTIVE_TICKETS);
    return { ticket, expiresAt };
  }

  /** The principal the ticket stands for; the ticket is spent. */
  async redeem(ticket: string | undefined): Promise<{ principal: Principal; authMethod: string; orgId: string | null }> {
    if (!ticket || ticket.length > 128) throw authProblems.invalidTicket();
    const wire = await this.repo.consume(digestOf(ticket));
    if (!wire) throw authProblems.invalidTicket();
    return { principal: principalFromWire(wire), authMethod: String(wire.auth_method), orgId: (wire.org_id as string | null) ?? null };
  }
}
