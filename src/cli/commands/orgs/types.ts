import type { Column } from '../../runtime/table.js';
import type { MemberView, OrgListItem, OrgView, Page } from '../../../shared/api/tenancy.js';

/** The daemon's wire shapes (src/shared/api), under the names the commands use. */
export type { MemberView as Member, OrgListItem, OrgView as Org, Page };

const yes = (value: boolean) => (value ? 'yes' : 'no');

export const ORG_COLUMNS: Column<OrgListItem>[] = [
  { header: 'SLUG', value: (o) => o.slug },
  { header: 'NAME', value: (o) => o.name },
  { header: 'ROLE', value: (o) => o.role },
  { header: 'ACCESS', value: (o) => o.access },
  { header: 'ACTIVE', value: (o) => yes(o.is_active) },
  { header: 'FLAGS', value: (o) => [o.is_default && 'default', o.is_shared && 'shared'].filter(Boolean).join(',') },
  { header: 'ID', value: (o) => o.id },
];

export const orgFields = (o: OrgView) =>
  [
    ['slug', o.slug],
    ['name', o.name],
    ['id', o.id],
    ['description', o.description],
    ['active', yes(o.is_active)],
    ['default', yes(o.is_default)],
    ['shared', yes(o.is_shared)],
    ['settings', JSON.stringify(o.settings)],
    ['created', o.created_at],
    ['updated', o.updated_at],
  ] as const;
