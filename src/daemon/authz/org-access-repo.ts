import type { Knex } from 'knex';
import { isUuid } from '../tenancy/orgs-repo.js';

export interface OrgAccessRow {
  readonly id: string;
  readonly slug: string;
  readonly is_active: boolean;
  readonly role: string | null;
}

/** One query: the organization named by id or slug, and the caller's membership role in it (if any, and if their profile is active). */
export class OrgAccessRepo {
  constructor(private readonly knex: Knex) {}

  async lookup(ref: string, sub: string | undefined): Promise<OrgAccessRow | undefined> {
    const membership = this.knex('org_memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where('u.sub', sub ?? '')
      .andWhere('u.is_active', true)
      .select('m.org_id', 'm.role')
      .as('mm');
    return this.knex('organizations as o')
      .leftJoin(membership, 'mm.org_id', 'o.id')
      .where(isUuid(ref) ? { 'o.id': ref } : { 'o.slug': ref })
      .first('o.id', 'o.slug', 'o.is_active', 'mm.role');
  }
}
