import type { Knex } from 'knex';
import { prepared } from '../db/prepared.js';
import { isUuid } from '../tenancy/orgs-repo.js';
import { MembershipCache } from './membership-cache.js';

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
  readonly is_active: boolean;
}

export interface OrgAccessRow extends OrgRef {
  readonly role: string | null;
}

const ORG_TTL_MS = 5000;

/**
 * Organizations and memberships as the request path needs them. Organizations (rarely changed) are
 * cached for five seconds per reference, so a platform admin's request needs no query at all.
 * Memberships are cached until the next membership change (`MembershipCache`, emptied by every writer
 * on this instance and by notification on the others), so a change still applies at once.
 */
export class OrgAccessRepo {
  readonly #orgs = new Map<string, { row: OrgRef | undefined; until: number }>();
  #shared: { id: string | null; until: number } | undefined;

  constructor(
    private readonly knex: Knex,
    private readonly memberships: MembershipCache = new MembershipCache(),
  ) {}

  /** The organization when a current answer is cached (null: cached as none); undefined when a query is needed. */
  cachedOrg(ref: string): OrgRef | null | undefined {
    const cached = this.#orgs.get(ref);
    if (!cached || cached.until <= Date.now()) return undefined;
    return cached.row ?? null;
  }

  /** The role when a current answer is cached (null: cached as none); undefined when a query is needed. */
  cachedRole(orgId: string, sub: string): string | null | undefined {
    return this.memberships.get(orgId, sub);
  }

  async org(ref: string): Promise<OrgRef | undefined> {
    const cached = this.cachedOrg(ref);
    if (cached !== undefined) return cached ?? undefined;
    const row: OrgRef | undefined = await this.knex('organizations')
      .where(isUuid(ref) ? { id: ref } : { slug: ref })
      .first('id', 'slug', 'is_active');
    if (this.#orgs.size > 10_000) this.#orgs.clear();
    this.#orgs.set(ref, { row, until: Date.now() + ORG_TTL_MS });
    return row;
  }

  /**
   * The id of the shared organization (whose resources every tenant may read), or null when none is
   * designated (or it is inactive); cached like the organizations.
   */
  async sharedOrgId(): Promise<string | null> {
    if (this.#shared && this.#shared.until > Date.now()) return this.#shared.id;
    const row: { id: string } | undefined = await this.knex('organizations').where({ is_shared: true, is_active: true }).first('id');
    this.#shared = { id: row?.id ?? null, until: Date.now() + ORG_TTL_MS };
    return this.#shared.id;
  }

  /** The organizations whose resources a caller active in `orgId` may read: its own, then the shared one. */
  async readableOrgIds(orgId: string): Promise<string[]> {
    const shared = await this.sharedOrgId();
    return shared === null || shared === orgId ? [orgId] : [orgId, shared];
  }

  /**
   * Forgets cached organizations (after this instance changed one), and memberships with them: deleting
   * an organization deletes its memberships.
   */
  invalidate(): void {
    this.#orgs.clear();
    this.#shared = undefined;
    this.memberships.invalidate();
  }

  /** The role of the (active) user with subject `sub` in the organization, if a member. */
  async role(orgId: string, sub: string): Promise<string | undefined> {
    const cached = this.cachedRole(orgId, sub);
    if (cached !== undefined) return cached ?? undefined;
    const generation = this.memberships.generation;
    const row: { role: string } | undefined = await this.knex('org_memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.org_id': orgId, 'u.sub': sub, 'u.is_active': true })
      .first('m.role')
      .options(prepared('svc_membership_role'));
    this.memberships.set(orgId, sub, row?.role ?? null, generation);
    return row?.role;
  }

  async lookup(ref: string, sub: string | undefined): Promise<OrgAccessRow | undefined> {
    const org = await this.org(ref);
    if (!org) return undefined;
    return { ...org, role: sub ? ((await this.role(org.id, sub)) ?? null) : null };
  }
}
