import type { Provider, ProviderList, SyncHistory, SyncRun } from '../../../shared/api/inventory-providers.js';
import type { Column } from '../../runtime/table.js';

/** The provider routes' wire shapes, inferred from the schemas the daemon answers with (types only). */
export type { Provider, ProviderList, SyncHistory, SyncRun };

export const PROVIDER_COLUMNS: Column<Provider>[] = [
  { header: 'PROVIDER ID', value: (p) => p.provider_id },
  { header: 'TYPE', value: (p) => p.type },
  { header: 'ENABLED', value: (p) => (p.enabled ? 'yes' : 'no') },
  { header: 'LAST SYNC', value: (p) => (p.last_sync ? `${p.last_sync.status} ${p.last_sync.at}` : null) },
  { header: 'DELETED', value: (p) => p.deleted_at },
];

const summary = (counts: SyncRun['counts'][keyof SyncRun['counts']]) =>
  `+${counts.created} ~${counts.updated} ↺${counts.restored} -${counts.stale} skip ${counts.skipped}`;

export const SYNC_COLUMNS: Column<SyncRun>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'MODE', value: (s) => s.mode },
  { header: 'STATUS', value: (s) => s.status },
  { header: 'STARTED', value: (s) => s.started_at },
  { header: 'DEVICES', value: (s) => summary(s.counts.devices) },
  { header: 'SITES', value: (s) => summary(s.counts.sites) },
  { header: 'ERROR', value: (s) => (s.error ? `${s.error.code} (${s.error.phase ?? '-'})` : null) },
];

/** A provider id in a path: its colons as they are. */
export const providerPath = (providerId: string, rest = '') => `/inventory/providers/${encodeURIComponent(providerId)}${rest}`;
