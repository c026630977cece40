import type { RunTokenKind } from '../../../shared/api/run-tokens.js';
import type { AuditContext } from '../../audit/audit-context.js';
import { digestOf } from '../../auth/secrets.js';
import { isWellFormedRunToken } from './run-token-format.js';
import type { RunTokensRepo } from './run-tokens-repo.js';

/** What a live run token lets its bearer do, as its consumers (state backend, registry proxy) read it. */
export interface RunTokenGrant {
  readonly tokenId: string;
  readonly runId: string;
  readonly stepId: string;
  readonly attempt: number;
  readonly kind: RunTokenKind;
  /** The run's organization: the token acts in it and nowhere else. */
  readonly orgId: string;
  readonly orgSlug: string;
  /** `iac_state:<state_name>` or `registry:step:<org_slug>`. */
  readonly scope: string;
  /** The one state an `iac_state` token may use; null for a registry token. */
  readonly stateName: string | null;
  readonly expiresAt: Date;
}

/**
 * Checks a presented run token: `verify` answers its grant when the token is live (not revoked, not
 * expired, its run still active in the attempt it was minted in), else undefined. A token that is not
 * even shaped like one costs no query.
 */
export class RunTokenVerifier {
  constructor(
    private readonly repo: RunTokensRepo,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async verify(token: string): Promise<RunTokenGrant | undefined> {
    if (!isWellFormedRunToken(token)) return undefined;
    const row = await this.repo.live(digestOf(token), this.clock());
    if (!row) return undefined;
    return {
      tokenId: row.id,
      runId: row.run_id,
      stepId: row.step_id,
      attempt: row.attempt,
      kind: row.kind,
      orgId: row.org_id,
      orgSlug: row.org_slug,
      scope: row.scope,
      stateName: row.state_name,
      expiresAt: new Date(row.expires_at),
    };
  }
}

/**
 * Makes the request's audit context the token's: method `run_token`, the token as the actor, the run's
 * organization, and the run and step every entry of the request records (`details.run_id`, `step_id`).
 */
export function actAsRunToken(audit: AuditContext, grant: RunTokenGrant): void {
  audit.authMethod = 'run_token';
  audit.subject = `run_token:${grant.tokenId}`;
  audit.orgId = grant.orgId;
  audit.runToken = { tokenId: grant.tokenId, runId: grant.runId, stepId: grant.stepId };
}
