import type { Knex } from 'knex';

/**
 * Serializes moves of sites within one organization, whoever moves them (the sites routes, a bundle's
 * apply): two concurrent moves (A under B, B under A) would each pass the cycle check alone.
 */
export async function lockSiteHierarchy(db: Knex, orgId: string): Promise<void> {
  await db.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`sites-hierarchy:${orgId}`]);
}

/** The site's ancestors' ids, nearest first (bounded, in case a cycle slipped in behind the API's back). */
export async function siteAncestorIds(db: Knex, id: string): Promise<string[]> {
  const { rows } = await db.raw(
    `WITH RECURSIVE up(id, parent_id, depth) AS (
       SELECT id, parent_id, 0 FROM sites WHERE id = ?
       UNION ALL
       SELECT s.id, s.parent_id, up.depth + 1 FROM sites s JOIN up ON s.id = up.parent_id WHERE up.depth < 10000
     ) SELECT id FROM up WHERE depth > 0 ORDER BY depth`,
    [id],
  );
  return (rows as { id: string }[]).map((r) => r.id);
}
