import type { Knex } from 'knex';
import type { Principal } from '../../shared/auth/principal.js';
import { DEFAULT_ORG_ROLE } from '../../shared/tenancy/org-roles.js';
import { planSync, type PlannedChange } from '../../shared/tenancy/sync-plan.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { AuditWriter } from '../audit/audit-writer.js';
import type { UsersRepo } from './users-repo.js';
import type { LoginSyncRepo } from './login-sync-repo.js';
import type { IdpMappingsRepo } from './idp-mappings-repo.js';
import type { MappingIndex } from './mapping-index.js';

export interface LoginSyncOptions {
  readonly sync: boolean;
  readonly groupClaim: string;
  readonly authoritative: boolean;
  readonly autoJoin: boolean;
}

export interface LoginInput {
  readonly principal: Principal;
  /** The values of the configured group claim; `undefined` when the token does not carry the claim at all. */
  readonly claimValues: readonly string[] | undefined;
}

const EVENT: Record<Exclude<PlannedChange['kind'], 'untouched'>, string> = {
  add: 'org_member.idp_added',
  upgrade: 'org_member.idp_upgraded',
  downgrade: 'org_member.idp_downgraded',
  remove: 'org_member.idp_removed',
};

/**
 * The first request of a session: upsert the user, derive memberships from the group claim through the
 * IdP mappings, and fall back to auto-joining the default organization. Every change is audited with
 * the mapping behind it. A token that lacks the claim altogether changes nothing (and says so in the
 * audit log), so a broken mapper in the identity provider cannot strip everybody's memberships.
 */
export class LoginSync {
  /**
   * `onChange` runs once a transaction that changed memberships has committed, before the request goes
   * on: its own organization lookup comes next and reads roles through `MembershipCache`.
   */
  constructor(
    private readonly knex: Knex,
    private readonly users: UsersRepo,
    private readonly repo: LoginSyncRepo,
    private readonly mappings: IdpMappingsRepo,
    private readonly index: MappingIndex,
    private readonly audit: AuditWriter,
    private readonly options: LoginSyncOptions,
    private readonly onChange: () => void = () => {},
  ) {}

  async run(input: LoginInput, context: AuditContext | undefined): Promise<void> {
    const user = await this.users.upsertLogin(input.principal);
    if (!user.is_active) return;
    const hasMembership = this.options.sync ? await this.#sync(user.id, input, context) : undefined;
    if (this.options.autoJoin && hasMembership !== true) await this.#autoJoin(user.id, context);
  }

  /** Returns whether the user holds a membership afterwards, when that is known without another query. */
  async #sync(userId: string, input: LoginInput, context: AuditContext | undefined): Promise<boolean | undefined> {
    const { groupClaim, authoritative } = this.options;
    if (input.claimValues === undefined) {
      await this.audit.record(context, {
        eventType: 'org_sync.claim_missing',
        resourceType: 'user',
        resourceId: userId,
        outcome: 'failure',
        orgId: null,
        details: { claim: groupClaim },
      });
      return undefined;
    }
    // Read before the transaction: the embedded database has one connection, which the transaction holds.
    // Mappings come from the in-process index (kept current by NOTIFY); memberships change at every
    // login and through the members API, so they are always read.
    const matched = await this.index.match(groupClaim, input.claimValues);
    const memberships = await this.mappings.membershipsOf(userId);
    const plan = planSync({ memberships, matched, authoritative });
    // Only active organizations were read: with none, the auto-join check asks the database itself.
    if (plan.every((change) => change.kind === 'untouched')) return memberships.length > 0 ? true : undefined;
    const byId = new Map(matched.map((m) => [m.id, m]));
    await this.knex.transaction(async (trx) => {
      for (const change of plan) {
        if (change.kind === 'untouched') continue;
        const applied =
          change.kind === 'add'
            ? await this.repo.addIdp(trx, userId, change.orgId, change.role)
            : change.kind === 'remove'
              ? await this.repo.removeIdp(trx, userId, change.orgId)
              : await this.repo.setIdpRole(trx, userId, change.orgId, change.role);
        if (!applied) continue;
        const mapping = 'mappingId' in change ? byId.get(change.mappingId) : undefined;
        await this.audit.record(
          context,
          {
            eventType: EVENT[change.kind],
            action: 'org_member:sync',
            resourceType: 'org_membership',
            resourceId: userId,
            outcome: 'success',
            orgId: change.orgId,
            details: {
              user: input.principal.username,
              role: change.role,
              ...('from' in change ? { from: change.from } : {}),
              mapping: mapping ? { id: mapping.id, claim: mapping.claim, value: mapping.value, role: mapping.role } : null,
              mode: authoritative ? 'authoritative' : 'additive',
            },
          },
          trx,
        );
      }
    });
    this.onChange();
    return plan.some((change) => change.kind !== 'remove') ? true : undefined;
  }

  async #autoJoin(userId: string, context: AuditContext | undefined): Promise<void> {
    if (await this.repo.hasAnyMembership(userId)) return;
    const orgId = await this.repo.defaultOrgId();
    if (!orgId) return;
    const joined = await this.knex.transaction(async (trx) => {
      if (!(await this.repo.addManual(trx, userId, orgId, DEFAULT_ORG_ROLE))) return false;
      await this.audit.record(
        context,
        {
          eventType: 'org_member.auto_joined',
          action: 'org_member:sync',
          resourceType: 'org_membership',
          resourceId: userId,
          outcome: 'success',
          orgId,
          details: { role: DEFAULT_ORG_ROLE },
        },
        trx,
      );
      return true;
    });
    if (joined) this.onChange();
  }
}
