import type { Knex } from 'knex';
import { PreparedStatement, queryPrepared } from '../../db/prepared.js';
import type { RunTokenKind } from '../../../shared/api/run-tokens.js';
import { ACTIVE_STATUSES } from '../runs/run-state.js';

export interface RunTokenRow {
  readonly id: string;
  readonly run_id: string;
  readonly step_id: string;
  readonly attempt: number;
  readonly kind: RunTokenKind;
  readonly org_id: string;
  readonly scope: string;
  readonly state_name: string | null;
  readonly expires_at: Date;
  readonly revoked_at: Date | null;
}

/** A live token as `verify` reads it, with its organization's slug (the registry's scope names it). */
export interface LiveRunTokenRow {
  readonly id: string;
  readonly run_id: string;
  readonly step_id: string;
  readonly attempt: number;
  readonly kind: RunTokenKind;
  readonly org_id: string;
  readonly org_slug: string;
  readonly scope: string;
  readonly state_name: string | null;
  readonly expires_at: Date;
}

const COLUMNS = ['id', 'run_id', 'step_id', 'attempt', 'kind', 'org_id', 'scope', 'state_name', 'expires_at', 'revoked_at'];

const ACTIVE_LIST = ACTIVE_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * The one read behind every use of a run token (each registry request, each state backend call): live
 * means not revoked, not expired, and its run still active in the attempt it was minted in. A prepared
 * statement: it sits on the registry's hot path.
 */
const LIVE_TOKEN = new PreparedStatement(
  'run_tokens_live',
  () => `SELECT t.id, t.run_id, t.step_id, t.attempt, t.kind, t.org_id, o.slug AS org_slug, t.scope, t.state_name, t.expires_at
FROM run_tokens t
JOIN runs r ON r.id = t.run_id
JOIN organizations o ON o.id = t.org_id
WHERE t.token_digest = ? AND t.revoked_at IS NULL AND t.expires_at > ?
  AND r.attempt = t.attempt AND r.status IN (${ACTIVE_LIST})`,
);

export interface NewRunToken {
  readonly run_id: string;
  readonly step_id: string;
  readonly attempt: number;
  readonly kind: RunTokenKind;
  readonly org_id: string;
  readonly scope: string;
  readonly state_name: string | null;
  readonly token_digest: string;
  readonly expires_at: Date;
}

/** The `run_tokens` table: minted, revoked, and read by digest. */
export class RunTokensRepo {
  constructor(private readonly knex: Knex) {}

  async insert(trx: Knex.Transaction, token: NewRunToken): Promise<RunTokenRow> {
    const [row] = await trx('run_tokens').insert(token).returning(COLUMNS);
    return row as RunTokenRow;
  }

  /** A token of this run and kind, locked for the rest of the transaction. */
  lock(trx: Knex.Transaction, runId: string, kind: RunTokenKind, id: string): Promise<RunTokenRow | undefined> {
    return trx('run_tokens').where({ id, run_id: runId, kind }).forUpdate().first(COLUMNS);
  }

  async revoke(trx: Knex.Transaction, id: string, now: Date): Promise<void> {
    await trx('run_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: now });
  }

  /** Revokes the live tokens of one step of one attempt; answers their ids. */
  async revokeForStep(trx: Knex.Transaction, runId: string, attempt: number, stepId: string, now: Date): Promise<string[]> {
    const rows: { id: string }[] = await trx('run_tokens')
      .where({ run_id: runId, attempt, step_id: stepId })
      .whereNull('revoked_at')
      .update({ revoked_at: now })
      .returning('id');
    return rows.map((r) => r.id);
  }

  async live(digest: string, now: Date): Promise<LiveRunTokenRow | undefined> {
    const [row] = await queryPrepared<LiveRunTokenRow>(this.knex, LIVE_TOKEN, [digest, now]);
    return row;
  }
}

/** What minting reads besides the run: the step's run in the holder's attempt, and the organization's slug. */
export class MintFactsRepo {
  async stepStatus(trx: Knex.Transaction, runId: string, attempt: number, stepId: string): Promise<string | undefined> {
    const row = await trx('step_runs').where({ run_id: runId, attempt, step_id: stepId }).first('status');
    return (row as { status: string } | undefined)?.status;
  }

  async orgSlug(trx: Knex.Transaction, orgId: string): Promise<string> {
    const row = await trx('organizations').where({ id: orgId }).first('slug');
    return (row as { slug: string }).slug;
  }
}
