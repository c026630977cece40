import type { RunEventsPage } from '../../../shared/api/run-events.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { RunEventsRepo } from './run-events-repo.js';

/** A run's events, paged; the live stream is `live-streams/run-stream.ts` over the daemon's hub. */
export class RunEventsService {
  constructor(private readonly repo: RunEventsRepo) {}

  /** Events with `seq > after`, oldest first; `next_after` is null once the page holds the run's last event. */
  async page(orgId: string, runId: string, after: number, limit: number): Promise<RunEventsPage> {
    if (!isUuid(runId)) throw problems.resourceNotFound('Run');
    const read = await this.repo.read(runId, after, limit, orgId);
    if (!read) throw problems.resourceNotFound('Run');
    const last = read.items.at(-1)?.seq;
    return { items: read.items, next_after: last === undefined || last >= read.lastSeq ? null : last, run_status: read.status };
  }

  /** Whether the live run is the organization's (a stream opens only then). */
  async exists(orgId: string, runId: string): Promise<boolean> {
    return (await this.repo.read(runId, 0, 0, orgId)) !== undefined;
  }
}
