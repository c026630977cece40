import type { OrgHealthAnswer, OrgHealthQuery } from '../../../shared/api/dashboard.js';
import type { OrgHealthRepo } from './org-health-repo.js';
import type { Clock } from './stats-service.js';
import { resolveWindow } from './window.js';

/** `GET /dashboard/org-health`: every organization's activity over the window, a page at a time (platform admins). */
export class OrgHealthService {
  constructor(
    private readonly repo: OrgHealthRepo,
    private readonly clock: Clock,
  ) {}

  async page(query: OrgHealthQuery): Promise<OrgHealthAnswer> {
    const window = resolveWindow(query.window, this.clock());
    const { rows, total } = await this.repo.page({
      from: window.from,
      q: query.q?.trim() || undefined,
      limit: query.limit,
      offset: query.offset,
    });
    return {
      window: { name: window.name, from: window.from.toISOString(), to: window.to.toISOString() },
      items: rows.map((row) => {
        const finished = row.succeeded + row.failed;
        return {
          org_id: row.id,
          slug: row.slug,
          name: row.name,
          is_shared: row.is_shared,
          members: row.members,
          flows: row.flows,
          runs: row.runs,
          failed: row.failed,
          failure_rate: finished === 0 ? null : row.failed / finished,
          queued_now: row.queued_now,
          running_now: row.running_now,
          last_activity_at: row.last_activity_at === null ? null : new Date(row.last_activity_at).toISOString(),
        };
      }),
      total,
      limit: query.limit,
      offset: query.offset,
    };
  }
}
