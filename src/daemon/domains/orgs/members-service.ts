import type { MemberView } from '../../../shared/api/tenancy.js';
export type { MemberView };
import type { OrgRole } from '../../../shared/tenancy/org-roles.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { problems } from '../../../shared/api/problems.js';
import type { OrgRecord, OrgsRepo, Tx } from '../../tenancy/orgs-repo.js';
import { isUuid } from '../../../shared/ids.js';
import type { UserRow, UsersRepo } from '../../tenancy/users-repo.js';
import type { AddableUserRow, MemberRow, MembershipsRepo } from './memberships-repo.js';
import { orgRuleProblem, type OrgCaller, type Page } from './orgs-service.js';

export function memberView(row: MemberRow): MemberView {
  return {
    user_id: row.user_id,
    username: row.username,
    email: row.email,
    role: row.role,
    source: row.source,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

const ACTION = 'org_member:manage';

/**
 * Memberships of one organization, by hand: list, add (source `manual`), change role, remove. A hand
 * edit of an `idp` row makes it `manual`, so sync never overrides an admin's decision. Only a platform
 * admin may remove or demote the organization's last admin. Changes of one organization's memberships
 * are serialized on its row, so two admins demoting each other cannot both succeed.
 */
export class MembersService {
  /**
   * `onChange` runs once a change has committed, before answering: the request path caches roles
   * (`MembershipCache`), and the next request on this instance must already see the change.
   */
  constructor(
    private readonly orgs: OrgsRepo,
    private readonly memberships: MembershipsRepo,
    private readonly users: UsersRepo,
    private readonly audit: AuditWriter,
    private readonly onChange: () => void = () => {},
  ) {}

  async list(ref: string, page: { limit: number; offset: number }): Promise<Page<MemberView>> {
    const org = await this.#org(ref);
    const { rows, total } = await this.memberships.list(org.id, page);
    return { items: rows.map(memberView), total, limit: page.limit, offset: page.offset };
  }

  /** A platform admin searches every user; an organization admin only those it may know of (MembershipsRepo.addable). */
  async addable(
    ref: string,
    filter: { prefix?: string | undefined; limit: number },
    caller: { sub: string; platformAdmin: boolean },
  ): Promise<{ items: AddableUserRow[] }> {
    const org = await this.#org(ref);
    return { items: await this.memberships.addable(org.id, { ...filter, visibleTo: caller.platformAdmin ? undefined : caller.sub }) };
  }

  async add(
    ref: string,
    input: { userId?: string | undefined; username?: string | undefined; role: OrgRole },
    context: AuditContext | undefined,
  ): Promise<MemberView> {
    const user = await this.#user(input);
    return this.#write(async (trx) => {
      const org = await this.#lock(trx, ref);
      const row = await this.memberships.insert(trx, { org_id: org.id, user_id: user.id, role: input.role, source: 'manual' });
      if (!row) throw problems.conflict(`${user.username} is already a member of ${org.slug}.`);
      await this.#record(context, trx, 'org_member.added', org, user.id, { user: user.username, role: row.role, source: row.source });
      return memberView(row);
    });
  }

  /** Any hand edit of an `idp` row (even one that keeps the role) makes it `manual`: sync then leaves it alone. */
  async changeRole(ref: string, userId: string, role: OrgRole, caller: OrgCaller, context: AuditContext | undefined): Promise<MemberView> {
    return this.#write(async (trx) => {
      const org = await this.#lock(trx, ref);
      const current = await this.#membership(trx, org, userId);
      if (current.role === role && current.source === 'manual') return memberView(current);
      if (current.role === 'admin' && role !== 'admin') await this.#keepAnAdmin(trx, org, userId, caller, 'role', 'demote');
      const updated = (await this.memberships.setRole(trx, org.id, userId, role, 'manual'))!;
      await this.#record(context, trx, 'org_member.role_changed', org, userId, {
        user: current.username,
        old_role: current.role,
        new_role: updated.role,
        old_source: current.source,
        new_source: updated.source,
      });
      return memberView(updated);
    });
  }

  async remove(ref: string, userId: string, caller: OrgCaller, context: AuditContext | undefined): Promise<void> {
    await this.#write(async (trx) => {
      const org = await this.#lock(trx, ref);
      const current = await this.#membership(trx, org, userId);
      if (current.role === 'admin') await this.#keepAnAdmin(trx, org, userId, caller, 'user_id', 'remove');
      await this.memberships.remove(trx, org.id, userId);
      await this.#record(context, trx, 'org_member.removed', org, userId, {
        user: current.username,
        role: current.role,
        source: current.source,
      });
    });
  }

  /** `work` in one transaction, then `onChange` once it has committed. */
  async #write<T>(work: (trx: Tx) => Promise<T>): Promise<T> {
    const result = await this.orgs.transaction(work);
    this.onChange();
    return result;
  }

  async #org(ref: string): Promise<OrgRecord> {
    const org = await this.orgs.findRecordByRef(ref);
    if (!org) throw problems.resourceNotFound('Organization');
    return org;
  }

  async #lock(trx: Tx, ref: string): Promise<OrgRecord> {
    const org = await this.orgs.lockByRef(trx, ref);
    if (!org) throw problems.resourceNotFound('Organization');
    return org;
  }

  async #membership(trx: Tx, org: OrgRecord, userId: string): Promise<MemberRow> {
    const row = isUuid(userId) ? await this.memberships.find(trx, org.id, userId) : undefined;
    if (!row) throw problems.resourceNotFound('Membership');
    return row;
  }

  async #user(input: { userId?: string | undefined; username?: string | undefined }): Promise<UserRow> {
    const path = input.userId ? 'user_id' : 'username';
    const user = input.userId ? await this.users.findById(input.userId) : await this.users.findByUsername(input.username!);
    if (!user) throw problems.validation([{ path, message: 'no such user (a user exists after their first sign-in)' }]);
    if (!user.is_active) throw problems.validation([{ path, message: 'the user is deactivated' }]);
    return user;
  }

  /**
   * The organization's last admin stays unless a platform admin decides otherwise: `userId` may stop being
   * an admin only while another admin is an active user (a deactivated admin cannot administer anything).
   */
  async #keepAnAdmin(trx: Tx, org: OrgRecord, userId: string, caller: OrgCaller, path: string, verb: 'demote' | 'remove'): Promise<void> {
    if (caller.platformAdmin) return;
    if ((await this.memberships.otherActiveAdmins(trx, org.id, userId)) === 0) {
      throw orgRuleProblem('last_org_admin', path, `Only a platform admin may ${verb} the last admin of ${org.slug}.`);
    }
  }

  async #record(
    context: AuditContext | undefined,
    trx: Tx,
    eventType: string,
    org: OrgRecord,
    userId: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(
      context,
      {
        eventType,
        action: ACTION,
        resourceType: 'org_membership',
        resourceId: userId,
        outcome: 'success',
        orgId: org.id,
        details: { org: org.slug, user_id: userId, ...details },
      },
      trx,
    );
  }
}
