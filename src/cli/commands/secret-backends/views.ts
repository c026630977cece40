import type {
  SecretBackendItemView,
  SecretBackendTestView,
  SecretBackendTypeView,
  SecretBackendView,
} from '../../../shared/api/secrets.js';
import type { Column, OffsetPage } from '../../runtime/table.js';

/** The secret backend routes' wire shapes, inferred from the daemon's schemas (types only: no zod at run time). */
export type { SecretBackendItemView, SecretBackendTestView, SecretBackendTypeView, SecretBackendView };
export type SecretBackendList = OffsetPage<SecretBackendView>;
export type SecretBackendItemList = OffsetPage<SecretBackendItemView>;

export const BACKEND_COLUMNS: Column<SecretBackendView>[] = [
  { header: 'ID', value: (b) => b.id },
  { header: 'NAME', value: (b) => b.name },
  { header: 'TYPE', value: (b) => b.type },
  { header: 'SCHEME', value: (b) => b.scheme },
  { header: 'DEFAULT', value: (b) => (b.is_default ? 'yes' : null) },
  { header: 'SECRETS', value: (b) => b.secrets_count },
];

/** One backend as `field: value` lines; its config holds connection settings and secret references only. */
export const backendFields = (b: SecretBackendView) =>
  [
    ['id', b.id],
    ['name', b.name],
    ['type', b.type],
    ['scheme', b.scheme],
    ['config', JSON.stringify(b.config)],
    ['is_default', b.is_default],
    ['is_builtin', b.is_builtin],
    ['secrets_count', b.secrets_count],
    ['created_at', b.created_at],
    ['updated_at', b.updated_at],
    ['updated_by', b.updated_by],
  ] as const;
