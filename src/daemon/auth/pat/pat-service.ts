import type { PatView } from '../../../shared/api/tokens.js';
export type { PatView };
import type { Principal } from '../../../shared/auth/principal.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { problems } from '../../../shared/api/problems.js';
import { authProblems } from '../auth-problems.js';
import type { OrgsRepo } from '../../tenancy/orgs-repo.js';
import { isUuid } from '../../../shared/ids.js';
import type { UsersRepo } from '../../tenancy/users-repo.js';
import { digestOf } from '../secrets.js';
import { isWellFormedPersonalAccessToken, newPersonalAccessToken } from './pat-format.js';
import type { PatRepo, PatRow } from './pat-repo.js';

export interface PatIdentity {
  readonly principal: Principal;
  readonly userId: string;
  readonly orgId: string;
  readonly tokenId: string;
}

function iso(value: Date | null): string | null {
  return value ? new Date(value).toISOString() : null;
}

export function patView(row: PatRow): PatView {
  return {
    id: row.id,
    name: row.name,
    token_prefix: row.token_prefix,
    user: { id: row.user_id, username: row.username },
    org: { id: row.org_id, slug: row.org_slug },
    expires_at: iso(row.expires_at),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
    created_at: iso(row.created_at)!,
    created_by: row.created_by_sub,
  };
}

/** Personal access tokens: issue (plaintext once), list, revoke, and authenticate a presented token. */
export class PatService {
  constructor(
    private readonly tokens: PatRepo,
    private readonly users: UsersRepo,
    private readonly orgs: OrgsRepo,
    private readonly audit: AuditWriter,
  ) {}

  async create(
    input: { name: string; username: string; org?: string | undefined; expiresAt: Date | null },
    actor: Principal,
    context?: AuditContext,
  ): Promise<PatView & { token: string }> {
    const user = await this.users.findByUsername(input.username);
    if (!user) throw problems.validation([{ path: 'username', message: 'no such user (a user exists after their first sign-in)' }]);
    const org = input.org ? await this.orgs.findByRef(input.org) : await this.orgs.findDefault();
    if (!org) throw problems.validation([{ path: 'org', message: 'no such organization' }]);
    if (!(await this.users.membershipRole(user.id, org.id))) {
      throw problems.validation([{ path: 'org', message: `${user.username} is not a member of ${org.slug}` }]);
    }
    const { token, displayPrefix } = newPersonalAccessToken();
    const id = await this.tokens.insert({
      user_id: user.id,
      org_id: org.id,
      name: input.name,
      token_prefix: displayPrefix,
      token_digest: digestOf(token),
      expires_at: input.expiresAt,
      created_by_sub: actor.sub,
    });
    await this.audit.record(context, {
      eventType: 'api_token.created',
      action: 'api_token:manage',
      resourceType: 'api_token',
      resourceId: id,
      outcome: 'success',
      orgId: org.id,
      details: { name: input.name, user: user.username, org: org.slug, expires_at: iso(input.expiresAt) },
    });
    return { ...patView((await this.tokens.findById(id))!), token };
  }

  async list(filter: { username?: string | undefined; org?: string | undefined; includeRevoked: boolean }): Promise<PatView[]> {
    const user = filter.username ? await this.users.findByUsername(filter.username) : undefined;
    if (filter.username && !user) return [];
    const org = filter.org ? await this.orgs.findByRef(filter.org) : undefined;
    if (filter.org && !org) return [];
    const rows = await this.tokens.list({ userId: user?.id, orgId: org?.id, includeRevoked: filter.includeRevoked });
    return rows.map(patView);
  }

  async revoke(id: string, actor: Principal, context?: AuditContext): Promise<void> {
    const row = isUuid(id) ? await this.tokens.findById(id) : undefined;
    if (!row) throw problems.resourceNotFound('Token');
    if (await this.tokens.revoke(id, actor.sub)) {
      await this.audit.record(context, {
        eventType: 'api_token.revoked',
        action: 'api_token:manage',
        resourceType: 'api_token',
        resourceId: id,
        outcome: 'success',
        orgId: row.org_id,
        details: { user: row.username },
      });
    }
  }

  async revokeAllOfUser(username: string, actor: Principal, context?: AuditContext): Promise<number> {
    const user = await this.users.findByUsername(username);
    if (!user) throw problems.resourceNotFound('User');
    const ids = await this.tokens.revokeAllOfUser(user.id, actor.sub);
    await this.audit.record(context, {
      eventType: 'api_token.revoked_all',
      action: 'api_token:manage',
      resourceType: 'user',
      resourceId: user.id,
      outcome: 'success',
      details: { user: username, token_ids: ids },
    });
    return ids.length;
  }

  /**
   * The identity behind a presented token. Unknown: 401. Revoked, expired, or its user deactivated:
   * 401 and an `auth.failed` entry owned by the token's owner.
   */
  async authenticate(token: string, context?: AuditContext): Promise<PatIdentity> {
    if (!isWellFormedPersonalAccessToken(token)) throw authProblems.invalidToken();
    const row = await this.tokens.findByDigest(digestOf(token));
    if (!row) throw authProblems.invalidToken();
    const reason = row.revoked_at
      ? 'revoked'
      : row.expires_at && new Date(row.expires_at).getTime() <= Date.now()
        ? 'expired'
        : !row.user_is_active
          ? 'user_deactivated'
          : undefined;
    if (reason) {
      await this.audit.record(context, {
        eventType: 'auth.failed',
        action: 'auth:pat',
        resourceType: 'api_token',
        resourceId: row.id,
        outcome: 'failure',
        actor: { sub: row.user_sub, username: row.username },
        orgId: row.org_id,
        details: { reason, auth_method: 'pat' },
      });
      throw reason === 'user_deactivated' ? authProblems.accountDisabled() : authProblems.invalidToken();
    }
    await this.tokens.touch(row.id);
    return {
      principal: {
        sub: row.user_sub,
        username: row.username,
        email: row.user_email ?? '',
        realmRoles: [],
        clientRoles: [],
        groups: [],
        isServiceAccount: false,
      },
      userId: row.user_id,
      orgId: row.org_id,
      tokenId: row.id,
    };
  }
}
