import type { SiteRow } from './sites-repo.js';
import { siteView, type SiteTreeNode } from './views.js';

/**
 * Live sites nested by `parent_id`. A site whose parent is not among `rows` (none, or not visible here)
 * is a root. Each site appears once: should rows written behind the API's back form a cycle, the first
 * of its members (by name) becomes a root rather than the cycle vanishing or recursing.
 */
export function buildSiteTree(rows: readonly SiteRow[], orgId: string): SiteTreeNode[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const children = new Map<string, SiteRow[]>();
  for (const row of rows) {
    if (row.parent_id === null || !byId.has(row.parent_id)) continue;
    const siblings = children.get(row.parent_id) ?? [];
    siblings.push(row);
    children.set(row.parent_id, siblings);
  }
  const placed = new Set<string>();
  const grow = (row: SiteRow): SiteTreeNode => {
    placed.add(row.id);
    const kids = (children.get(row.id) ?? []).filter((child) => !placed.has(child.id));
    for (const kid of kids) placed.add(kid.id);
    return { ...siteView(row, orgId), children: kids.map(grow) };
  };
  const roots = rows.filter((row) => row.parent_id === null || !byId.has(row.parent_id)).map(grow);
  for (const row of rows) if (!placed.has(row.id)) roots.push(grow(row));
  return roots;
}
