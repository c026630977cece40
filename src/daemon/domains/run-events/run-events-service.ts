import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { runEventsPage } from '../../../shared/api/run-events.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { LiveStream } from './live-stream.js';
import type { RunEventsHub } from './run-events-hub.js';
import type { RunEventsRepo } from './run-events-repo.js';

type RunEventsPage = z.infer<typeof runEventsPage>;

/** A run's events: paged reads, and live streams served by the daemon's hub. */
export class RunEventsService {
  constructor(
    private readonly repo: RunEventsRepo,
    private readonly hub: RunEventsHub,
  ) {}

  /** Events with `seq > after`, oldest first; `next_after` is null once the page holds the run's last event. */
  async page(orgId: string, runId: string, after: number, limit: number): Promise<RunEventsPage> {
    if (!isUuid(runId)) throw problems.resourceNotFound('Run');
    const read = await this.repo.read(runId, after, limit, orgId);
    if (!read) throw problems.resourceNotFound('Run');
    const last = read.events.at(-1)?.seq;
    return { items: read.events, next_after: last === undefined || last >= read.lastSeq ? null : last, run_status: read.status };
  }

  /** Answers 404 for a run that is not the organization's (or 503 when stopping) before the stream starts. */
  async checkStreamable(orgId: string, runId: string): Promise<void> {
    if (this.hub.closed) throw problems.shuttingDown();
    if (!isUuid(runId) || !(await this.repo.read(runId, 0, 0, orgId))) throw problems.resourceNotFound('Run');
  }

  /**
   * Streams the run into `response` (taken over from Koa) from `position`; settles when the stream ends
   * (the run's end, the client gone, a slow reader dropped, the daemon stopping).
   */
  stream(runId: string, position: number, response: ServerResponse): Promise<void> {
    const stream = new LiveStream(runId, response, position);
    this.hub.add(stream);
    return stream.closed;
  }
}
