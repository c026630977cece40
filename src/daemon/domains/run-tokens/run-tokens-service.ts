import type { Knex } from 'knex';
import type { MintedRunToken, RunTokenKind } from '../../../shared/api/run-tokens.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { digestOf } from '../../auth/secrets.js';
import type { Holder } from '../run-callbacks/fence.js';
import type { HoldState } from '../iac-states/iac-holds.js';
import type { HeldRuns } from '../run-callbacks/held-runs.js';
import { newRunToken } from './run-token-format.js';
import type { MintFactsRepo, RunTokenRow, RunTokensRepo } from './run-tokens-repo.js';

const ACTION = 'internal:run_callbacks';

/** What a mint asks for: the step, the one state of an `iac_state` token, and a shorter life if wanted. */
export interface MintRequest {
  readonly kind: RunTokenKind;
  readonly stepId: string;
  readonly stateName?: string;
  readonly ttlSeconds?: number | undefined;
  /** An `iac_state` token's step holds the state until the run applies or ends (`hold_until_apply`). */
  readonly holdUntilApply?: boolean | undefined;
}

function scopeOf(kind: RunTokenKind, stateName: string | undefined, orgSlug: string): string {
  return kind === 'iac_state' ? `iac_state:${stateName!}` : `registry:step:${orgSlug}`;
}

function tokenDetails(row: RunTokenRow): Record<string, unknown> {
  return {
    run_id: row.run_id,
    step_id: row.step_id,
    attempt: row.attempt,
    kind: row.kind,
    scope: row.scope,
    state_name: row.state_name,
    expires_at: new Date(row.expires_at).toISOString(),
  };
}

/**
 * Mints and revokes run tokens for the worker holding a run (fenced as every mutating callback is). A
 * token is for one step running in the holder's attempt, and dies with it: revoked when the step
 * finishes (`stepEnded`, called in the step run's own transaction), unusable once the run ends or is
 * requeued (the verifier reads the run), and expired after `maxTtlSeconds` at the latest.
 */
export class RunTokensService {
  constructor(
    private readonly repo: RunTokensRepo,
    private readonly facts: MintFactsRepo,
    private readonly held: HeldRuns,
    private readonly audit: AuditWriter,
    private readonly maxTtlSeconds: number,
    private readonly holdState: HoldState,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  mint(runId: string, holder: Holder, request: MintRequest, context: AuditContext | undefined): Promise<MintedRunToken> {
    return this.held.hold(runId, holder, ['running'], 'given a run token', async (trx, run) => {
      const stepStatus = await this.facts.stepStatus(trx, runId, run.attempt, request.stepId);
      if (stepStatus !== 'running') {
        throw problem('step_not_running', `Step ${request.stepId} is not running in this attempt of the run.`, {
          step_id: request.stepId,
          current_status: stepStatus ?? null,
        });
      }
      if (request.kind === 'iac_state' && request.holdUntilApply === true) {
        await this.holdState(trx, { orgId: run.org_id, stateName: request.stateName!, runId, stepId: request.stepId }, context);
      }
      const token = newRunToken();
      const ttl = Math.min(request.ttlSeconds ?? this.maxTtlSeconds, this.maxTtlSeconds);
      const row = await this.repo.insert(trx, {
        run_id: runId,
        step_id: request.stepId,
        attempt: run.attempt,
        kind: request.kind,
        org_id: run.org_id,
        scope: scopeOf(request.kind, request.stateName, await this.facts.orgSlug(trx, run.org_id)),
        state_name: request.kind === 'iac_state' ? request.stateName! : null,
        token_digest: digestOf(token),
        expires_at: new Date(this.clock().getTime() + ttl * 1000),
      });
      await this.audit.record(
        context,
        {
          eventType: 'run_token.minted',
          action: ACTION,
          resourceType: 'run_token',
          resourceId: row.id,
          orgId: run.org_id,
          details: tokenDetails(row),
        },
        trx,
      );
      return {
        id: row.id,
        token,
        kind: row.kind,
        run_id: row.run_id,
        step_id: row.step_id,
        attempt: row.attempt,
        scope: row.scope,
        state_name: row.state_name,
        expires_at: new Date(row.expires_at).toISOString(),
      };
    });
  }

  /** Revokes a token of this run and kind; revoking a revoked token again changes nothing. */
  revoke(runId: string, holder: Holder, kind: RunTokenKind, tokenId: string, context: AuditContext | undefined): Promise<void> {
    return this.held.hold(runId, holder, undefined, 'changed', async (trx, run) => {
      const row = isUuid(tokenId) ? await this.repo.lock(trx, runId, kind, tokenId) : undefined;
      if (!row) throw problems.resourceNotFound('Run token');
      if (row.revoked_at !== null) return;
      await this.repo.revoke(trx, row.id, this.clock());
      await this.audit.record(
        context,
        {
          eventType: 'run_token.revoked',
          action: ACTION,
          resourceType: 'run_token',
          resourceId: row.id,
          orgId: run.org_id,
          details: { ...tokenDetails(row), reason: 'worker' },
        },
        trx,
      );
    });
  }

  /** The step-run hook: a step that finished takes its tokens with it, in the same transaction. */
  readonly stepEnded = async (trx: Knex.Transaction, runId: string, attempt: number, stepId: string): Promise<void> => {
    await this.repo.revokeForStep(trx, runId, attempt, stepId, this.clock());
  };
}
