import type { Knex } from 'knex';
import {
  AUTHORIZATION_DEFAULT_SECONDS,
  type DestructiveAuthorization,
  type DestructiveAuthorizationList,
  type GrantAuthorizationBody,
  type RevokeAuthorizationBody,
} from '../../../shared/api/platform-sync-runs.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { AuthorizationFilter, AuthorizationRow, AuthorizationState, AuthorizationsRepo } from './authorizations-repo.js';
import { profileNotFound, type ProfilesService } from './profiles-service.js';
import type { ProfileRow, ProfilesRepo } from './profiles-repo.js';

const RESOURCE = 'platform_sync_authorization';
const AUTHORIZE = 'platform_sync:authorize_destructive';
const EXECUTE = 'platform_sync:execute';

const notFound = () => problems.resourceNotFound('Destructive authorization');

export function authorizationState(row: AuthorizationRow, now: Date): AuthorizationState {
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at.getTime() <= now.getTime() ? 'expired' : 'active';
}

function view(row: AuthorizationRow, now: Date): DestructiveAuthorization {
  return {
    id: row.id,
    profile_id: row.profile_id,
    plan_id: row.plan_id,
    reason: row.reason,
    state: authorizationState(row, now),
    granted_by: row.granted_by,
    granted_at: row.granted_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    revoked_by: row.revoked_by,
    revoke_reason: row.revoke_reason,
    use_count: row.use_count,
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}

/**
 * Destructive authorizations (`platform_sync:authorize_destructive`, read under `platform_sync:view`): a
 * grant with a reason and a bounded life, for the whole profile or one of its plans; grant, each use by an
 * apply and revoke are audited. docs/platform-sync.md.
 */
export class AuthorizationsService {
  constructor(
    private readonly repo: AuthorizationsRepo,
    private readonly profiles: ProfilesRepo,
    private readonly profileReads: Pick<ProfilesService, 'found'>,
    private readonly audit: AuditWriter,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(profileId: string, filter: AuthorizationFilter): Promise<DestructiveAuthorizationList> {
    await this.profileReads.found(profileId);
    const now = this.now();
    const { rows, total } = await this.repo.list(profileId, filter, now);
    return { items: rows.map((row) => view(row, now)), total, limit: filter.limit, offset: filter.offset };
  }

  async grant(profileId: string, body: GrantAuthorizationBody, context: AuditContext | undefined): Promise<DestructiveAuthorization> {
    if (!isUuid(profileId)) throw profileNotFound();
    const now = this.now();
    return this.repo.transaction(async (trx) => {
      const profile = await this.profiles.lock(trx, profileId);
      if (!profile) throw profileNotFound();
      if (body.plan_id !== undefined && !(await this.repo.planOfProfile(trx, profileId, body.plan_id))) {
        throw problems.validation([{ path: 'plan_id', message: 'not a plan of this profile' }]);
      }
      const seconds = body.expires_in_seconds ?? AUTHORIZATION_DEFAULT_SECONDS;
      const row = await this.repo.insert(trx, {
        profile_id: profileId,
        plan_id: body.plan_id ?? null,
        reason: body.reason,
        granted_at: now,
        granted_by: context?.subject ?? null,
        expires_at: new Date(now.getTime() + seconds * 1000),
      });
      await this.record(trx, context, 'platform_sync.authorization_granted', profile, row, {
        reason: row.reason,
        plan_id: row.plan_id,
        expires_at: row.expires_at.toISOString(),
      });
      return view(row, now);
    });
  }

  async revoke(
    profileId: string,
    id: string,
    body: RevokeAuthorizationBody,
    context: AuditContext | undefined,
  ): Promise<DestructiveAuthorization> {
    if (!isUuid(profileId)) throw profileNotFound();
    const now = this.now();
    return this.repo.transaction(async (trx) => {
      const profile = await this.profiles.find(profileId, trx);
      if (!profile) throw profileNotFound();
      const before = isUuid(id) ? await this.repo.lock(trx, profileId, id) : undefined;
      if (!before) throw notFound();
      if (before.revoked_at !== null) throw problems.conflict('The authorization is revoked already.');
      const row = await this.repo.revoke(trx, id, {
        revoked_at: now,
        revoked_by: context?.subject ?? null,
        revoke_reason: body.reason ?? null,
      });
      await this.record(trx, context, 'platform_sync.authorization_revoked', profile, row, {
        reason: row.revoke_reason,
        was: authorizationState(before, now),
      });
      return view(row, now);
    });
  }

  /**
   * Inside an apply's transaction: the authorization its destructive changes run under, its use recorded
   * and audited; else 409 `destructive_not_authorized` saying why (none, expired or revoked).
   */
  async use(
    trx: Knex.Transaction,
    profile: ProfileRow,
    planId: string,
    context: AuditContext | undefined,
    details: Record<string, unknown>,
  ): Promise<AuthorizationRow> {
    const now = this.now();
    const usable = await this.repo.usable(trx, profile.id, planId, now);
    if (!usable) {
      const latest = await this.repo.latest(trx, profile.id, planId);
      const reason = latest ? authorizationState(latest, now) : 'none';
      throw problem(
        'destructive_not_authorized',
        reason === 'none'
          ? 'The plan has destructive changes and no destructive authorization covers it.'
          : `The plan has destructive changes and the latest authorization covering it is ${reason}.`,
        { reason, ...(latest ? { authorization_id: latest.id } : {}) },
      );
    }
    await this.repo.recordUse(trx, usable.id, now);
    await this.record(trx, context, 'platform_sync.authorization_used', profile, usable, { plan_id: planId, ...details }, EXECUTE);
    return usable;
  }

  private async record(
    trx: Knex.Transaction,
    context: AuditContext | undefined,
    eventType: string,
    profile: ProfileRow,
    row: AuthorizationRow,
    details: Record<string, unknown>,
    action: string = AUTHORIZE,
  ): Promise<void> {
    await this.audit.record(
      context,
      {
        eventType,
        action,
        resourceType: RESOURCE,
        resourceId: row.id,
        outcome: 'success',
        orgId: profile.target_org_id,
        details: { profile_id: profile.id, profile: profile.name, ...details },
      },
      trx,
    );
  }
}
