import type { SecretDetailView, SecretProviderView, SecretView } from '../../../shared/api/secrets.js';
import type { Column, OffsetPage } from '../../runtime/table.js';

/** The secret routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { SecretDetailView, SecretProviderView, SecretView };
export type SecretList = OffsetPage<SecretView>;

export const SECRET_COLUMNS: Column<SecretView>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'NAME', value: (s) => s.name },
  { header: 'BACKEND', value: (s) => s.backend.name },
  { header: 'REFERENCE', value: (s) => s.reference },
  { header: 'UPDATED', value: (s) => s.updated_at },
];

/** One secret as `field: value` lines: its key names, never a value (no answer carries one). */
export const secretFields = (s: SecretDetailView) =>
  [
    ['id', s.id],
    ['name', s.name],
    ['description', s.description],
    ['backend', `${s.backend.name} (${s.backend.type})`],
    ['path', s.path],
    ['reference', s.reference],
    ['keys', s.keys.join(', ')],
    ['created_at', s.created_at],
    ['updated_at', s.updated_at],
    ['updated_by', s.updated_by],
  ] as const;
