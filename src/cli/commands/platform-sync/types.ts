import type { SyncPlan } from '../../../shared/api/platform-sync-plans.js';
import type { DestructiveAuthorization, SyncRun, SyncRunList } from '../../../shared/api/platform-sync-runs.js';
import type { SyncProfile, SyncProfileList } from '../../../shared/api/platform-sync.js';
import type { Column } from '../../runtime/table.js';

/** Platform sync's wire shapes, inferred from the schemas the daemon answers with (types only). */
export type { SyncPlan, SyncProfile, SyncProfileList, SyncRun, SyncRunList };

const source = (p: SyncProfile) => (p.source.kind === 'installation' ? p.source.base_url : p.source.kind);

export const PROFILE_COLUMNS: Column<SyncProfile>[] = [
  { header: 'ID', value: (p) => p.id },
  { header: 'NAME', value: (p) => p.name },
  { header: 'SOURCE', value: source },
  { header: 'TARGET', value: (p) => (p.target.scope === 'org' ? p.target.org : 'platform') },
  { header: 'PRUNE', value: (p) => (p.prune ? 'yes' : 'no') },
  { header: 'LAST APPLIED', value: (p) => p.last_applied_at },
];

export const RUN_COLUMNS: Column<SyncRun>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'KIND', value: (r) => r.kind },
  { header: 'STATUS', value: (r) => r.status },
  { header: 'STARTED', value: (r) => r.started_at },
  { header: 'CHANGES', value: (r) => `+${r.counts.created} ~${r.counts.updated} -${r.counts.deleted}` },
  { header: 'ERROR', value: (r) => r.error?.code },
];

export const AUTHORIZATION_COLUMNS: Column<DestructiveAuthorization>[] = [
  { header: 'ID', value: (a) => a.id },
  { header: 'STATE', value: (a) => a.state },
  { header: 'PLAN', value: (a) => a.plan_id },
  { header: 'EXPIRES', value: (a) => a.expires_at },
  { header: 'USED', value: (a) => a.use_count },
  { header: 'REASON', value: (a) => a.reason },
];

export const profilePath = (profileId: string, rest = '') => `/platform-sync/profiles/${encodeURIComponent(profileId)}${rest}`;
