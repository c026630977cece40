import type { Knex } from 'knex';

/** The tables holding what a provider imported, in the order stale marking and purging go through them. */
const IMPORTED = ['inventory_objects', 'devices', 'sites'] as const;
type ImportedTable = (typeof IMPORTED)[number];

const KIND: Record<ImportedTable, 'objects' | 'devices' | 'sites'> = { inventory_objects: 'objects', devices: 'devices', sites: 'sites' };

/** Stale marking, purge and counts over everything a provider imported into an organization. */
export class ImportedRepo {
  constructor(private readonly knex: Knex) {}

  /**
   * After a complete pass: every live row the pass did not see is marked stale (soft-deleted by the
   * sync, `deleted_by` saying so). A site a live device or child site still points at stays live, as a
   * site with devices cannot be deleted by hand either.
   */
  async markStale(
    trx: Knex.Transaction,
    orgId: string,
    providerId: string,
    seenAt: Date,
    by: string,
  ): Promise<Record<'objects' | 'devices' | 'sites', number>> {
    const counts = { objects: 0, devices: 0, sites: 0 };
    for (const table of IMPORTED) {
      const query = trx(table)
        .where({ org_id: orgId, provider_id: providerId })
        .whereNull('deleted_at')
        .where((unseen) => unseen.whereNull('provider_seen_at').orWhereNot('provider_seen_at', seenAt));
      if (table === 'sites') {
        query
          .whereNotExists((held) =>
            held.select(trx.raw('1')).from('devices as d').whereRaw('d.site_id = sites.id').whereNull('d.deleted_at'),
          )
          .whereNotExists((held) =>
            held.select(trx.raw('1')).from('sites as c').whereRaw('c.parent_id = sites.id').whereNull('c.deleted_at'),
          );
      }
      counts[KIND[table]] = await query.update({ deleted_at: trx.fn.now(), deleted_by: by });
    }
    return counts;
  }

  /** Removes for good every row the provider imported, live or stale; the numbers removed. */
  async purge(trx: Knex.Transaction, orgId: string, providerId: string): Promise<Record<'objects' | 'devices' | 'sites', number>> {
    const counts = { objects: 0, devices: 0, sites: 0 };
    for (const table of IMPORTED) {
      // Counted from the rows returned: the embedded database's driver answers a bare DELETE with no count.
      counts[KIND[table]] = (await trx(table).where({ org_id: orgId, provider_id: providerId }).delete().returning('id')).length;
    }
    return counts;
  }

  /** Live and stale rows per provider id, sites and devices, and objects per type. */
  async counts(orgId: string): Promise<{ kind: string; provider_id: string; object_type: string | null; live: number; stale: number }[]> {
    const rows = await this.knex.raw(
      `SELECT 'sites' AS kind, provider_id, NULL AS object_type, count(*) FILTER (WHERE deleted_at IS NULL) AS live, count(*) FILTER (WHERE deleted_at IS NOT NULL) AS stale
         FROM sites WHERE org_id = ? AND provider_id IS NOT NULL GROUP BY provider_id
       UNION ALL
       SELECT 'devices', provider_id, NULL, count(*) FILTER (WHERE deleted_at IS NULL), count(*) FILTER (WHERE deleted_at IS NOT NULL)
         FROM devices WHERE org_id = ? AND provider_id IS NOT NULL GROUP BY provider_id
       UNION ALL
       SELECT 'objects', provider_id, object_type, count(*) FILTER (WHERE deleted_at IS NULL), count(*) FILTER (WHERE deleted_at IS NOT NULL)
         FROM inventory_objects WHERE org_id = ? GROUP BY provider_id, object_type`,
      [orgId, orgId, orgId],
    );
    return (rows.rows as { kind: string; provider_id: string; object_type: string | null; live: string; stale: string }[]).map((row) => ({
      ...row,
      live: Number(row.live),
      stale: Number(row.stale),
    }));
  }
}
