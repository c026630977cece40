import type { SyncRun, SyncRunList } from '../../../shared/api/platform-sync-runs.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { ProfilesService } from './profiles-service.js';
import type { SyncRunFilter, SyncRunRow, SyncRunsRepo } from './runs-repo.js';

export function syncRunView(row: SyncRunRow): SyncRun {
  return {
    id: row.id,
    profile_id: row.profile_id,
    plan_id: row.plan_id,
    kind: row.kind,
    status: row.status,
    correlation_id: row.correlation_id,
    counts: row.counts,
    authorization_id: row.authorization_id,
    error: row.error,
    actor_sub: row.actor_sub,
    actor_username: row.actor_username,
    started_at: row.started_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}

/** The sync runs' reads (`platform_sync:view`). */
export class SyncRunsService {
  constructor(
    private readonly repo: SyncRunsRepo,
    private readonly profiles: Pick<ProfilesService, 'found'>,
  ) {}

  async list(profileId: string, filter: SyncRunFilter): Promise<SyncRunList> {
    await this.profiles.found(profileId);
    const { rows, total } = await this.repo.list(profileId, filter);
    return { items: rows.map(syncRunView), total, limit: filter.limit, offset: filter.offset };
  }

  async get(id: string): Promise<SyncRun> {
    const row = isUuid(id) ? await this.repo.find(id) : undefined;
    if (!row) throw problems.resourceNotFound('Sync run');
    return syncRunView(row);
  }
}
