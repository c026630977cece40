import type { Knex } from 'knex';
import { NotifiedCache, type NotifiedCacheOptions } from '../db/notified-cache.js';
import { prepared } from '../db/prepared.js';
import { isUuid } from '../../shared/ids.js';
import { MembershipCache } from './membership-cache.js';

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
  readonly is_active: boolean;
}

export interface OrgAccessRow extends OrgRef {
  readonly role: string | null;
}

/** `ttlMs` as in NotifiedCache: a backstop only, every change empties the caches at once. */
export type OrgAccessOptions = Pick<NotifiedCacheOptions, 'ttlMs'>;

/** The one key of the shared organization's cache. */
const SHARED = 'shared';

/**
 * Organizations and memberships as the request path needs them, cached until the next change rather
 * than for a timeout, so a platform admin's request needs no query at all and a change still applies at
 * once: organizations by reference (misses too), the shared organization's id, and roles
 * (`MembershipCache`). All three are emptied together (`invalidate`) by every writer on this instance
 * after its commit and, through `MembershipSync`, by `svc_memberships`, which database triggers send for
 * every change of a membership, a user's activity, or an organization's slug, activity, sharing or
 * existence (migrations 20261123100000 and 20261125100000).
 */
export class OrgAccessRepo {
  readonly #orgs: NotifiedCache<OrgRef | null>;
  readonly #shared: NotifiedCache<string | null>;

  constructor(
    private readonly knex: Knex,
    private readonly memberships: MembershipCache = new MembershipCache(),
    options: OrgAccessOptions = {},
  ) {
    this.#orgs = new NotifiedCache({ ...options, maxEntries: 10_000 });
    this.#shared = new NotifiedCache({ ...options, maxEntries: 1 });
  }

  /** The organization when a current answer is cached (null: cached as none); undefined when a query is needed. */
  cachedOrg(ref: string): OrgRef | null | undefined {
    return this.#orgs.get(ref);
  }

  /** The shared organization's id when a current answer is cached (null: none); undefined when a query is needed. */
  cachedSharedOrgId(): string | null | undefined {
    return this.#shared.get(SHARED);
  }

  /** The role when a current answer is cached (null: cached as none); undefined when a query is needed. */
  cachedRole(orgId: string, sub: string): string | null | undefined {
    return this.memberships.get(orgId, sub);
  }

  async org(ref: string): Promise<OrgRef | undefined> {
    const found = await this.#orgs.through(ref, async () => {
      const row: OrgRef | undefined = await this.knex('organizations')
        .where(isUuid(ref) ? { id: ref } : { slug: ref })
        .first('id', 'slug', 'is_active');
      return row ?? null;
    });
    return found ?? undefined;
  }

  /**
   * The id of the shared organization (whose resources every tenant may read), or null when none is
   * designated (or it is inactive); cached like the organizations.
   */
  async sharedOrgId(): Promise<string | null> {
    const found = await this.#shared.through(SHARED, async () => {
      const row: { id: string } | undefined = await this.knex('organizations').where({ is_shared: true, is_active: true }).first('id');
      return row?.id ?? null;
    });
    return found ?? null;
  }

  /** The organizations whose resources a caller active in `orgId` may read: its own, then the shared one. */
  async readableOrgIds(orgId: string): Promise<string[]> {
    const shared = await this.sharedOrgId();
    return shared === null || shared === orgId ? [orgId] : [orgId, shared];
  }

  /**
   * Forgets cached organizations, the shared one and memberships together (after a change here, or on
   * notification of one elsewhere): deleting an organization deletes its memberships.
   */
  invalidate(): void {
    this.#orgs.invalidate();
    this.#shared.invalidate();
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
