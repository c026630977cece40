import type { Column } from '../../runtime/table.js';

import type { IdpMapping as Mapping } from '../../../shared/api/idp-mappings.js';

export type { Mapping };

export const MAPPING_COLUMNS: Column<Mapping>[] = [
  { header: 'ID', value: (m) => m.id },
  { header: 'CLAIM', value: (m) => m.claim },
  { header: 'VALUE', value: (m) => m.value },
  { header: 'ROLE', value: (m) => m.role },
  { header: 'ACTIVE', value: (m) => (m.is_active ? 'yes' : 'no') },
];

/** `--active` / `--no-active`: true, false, or not given. */
export const activeFlag = (raw: Record<string, unknown>) => (typeof raw.active === 'boolean' ? raw.active : undefined);
