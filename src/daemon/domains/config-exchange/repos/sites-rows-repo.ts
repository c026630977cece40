import type { Knex } from 'knex';
import { lockSiteHierarchy, siteAncestorIds } from '../../inventory/site-hierarchy-repo.js';

export interface SiteRowFields {
  readonly name: string;
  readonly parent_id: string | null;
  readonly description: string | null;
  readonly address: string | null;
  readonly tags: readonly string[];
}

export interface LocalSite {
  readonly id: string;
  readonly name: string;
  readonly parent: string | null;
  readonly description: string | null;
  readonly address: string | null;
  readonly tags: string[];
}

/**
 * An organization's live sites as configuration exchange reads and writes them, on the handle it is
 * given. Provider-sourced sites are left out: their provider's sync brings them on every installation.
 */
export class SitesRowsRepo {
  async localLive(db: Knex, orgId: string): Promise<LocalSite[]> {
    return db('sites as s')
      .leftJoin('sites as p', function () {
        this.on('p.id', 's.parent_id').andOnNull('p.deleted_at');
      })
      .where('s.org_id', orgId)
      .whereNull('s.deleted_at')
      .whereNull('s.provider_id')
      .select('s.id', 's.name', 'p.name as parent', 's.description', 's.address', 's.tags');
  }

  /** A live site of the organization by name, provider-sourced or not. */
  async liveByName(db: Knex, orgId: string, name: string): Promise<{ id: string; provider_id: string | null } | undefined> {
    return db('sites').where({ org_id: orgId, name }).whereNull('deleted_at').forUpdate().first('id', 'provider_id');
  }

  async insert(db: Knex, orgId: string, fields: SiteRowFields, by: string | null): Promise<string> {
    const [row] = await db('sites')
      .insert({ org_id: orgId, ...fields, tags: JSON.stringify(fields.tags), created_by: by, updated_by: by })
      .returning('id');
    return (row as { id: string }).id;
  }

  async update(db: Knex, id: string, fields: SiteRowFields, by: string | null): Promise<void> {
    await db('sites')
      .where({ id })
      .update({ ...fields, tags: JSON.stringify(fields.tags), updated_by: by, updated_at: db.fn.now() });
  }

  /**
   * Whether making `parentId` the parent of `id` would close a loop: `id` is `parentId` or one of its
   * ancestors. Serialized with the inventory API's moves of the organization's sites.
   */
  async wouldCycle(db: Knex, orgId: string, id: string, parentId: string): Promise<boolean> {
    await lockSiteHierarchy(db, orgId);
    return parentId === id || (await siteAncestorIds(db, parentId)).includes(id);
  }

  /** How many live child sites and live devices the site still holds. */
  async holdings(db: Knex, id: string): Promise<{ children: number; devices: number }> {
    const count = async (table: string, column: string) => {
      const [row] = await db(table).where(column, id).whereNull('deleted_at').count<{ n: string | number }[]>('* as n');
      return Number(row?.n ?? 0);
    };
    return { children: await count('sites', 'parent_id'), devices: await count('devices', 'site_id') };
  }

  async softDelete(db: Knex, id: string, by: string | null): Promise<void> {
    await db('sites').where({ id }).update({ deleted_at: db.fn.now(), deleted_by: by });
  }
}
