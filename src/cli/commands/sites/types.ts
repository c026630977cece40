import type { Site, SiteTreeNode } from '../../../shared/api/sites.js';
import type { Column, OffsetPage } from '../../runtime/table.js';

/** The site routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { Site, SiteTreeNode };
export type SitePage = OffsetPage<Site>;

export const SITE_COLUMNS: Column<Site>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'NAME', value: (s) => s.name },
  { header: 'ADDRESS', value: (s) => s.address },
  { header: 'TAGS', value: (s) => s.tags.join(',') },
  { header: 'SHARED', value: (s) => (s.shared ? 'yes' : 'no') },
];
