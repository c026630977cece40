import { MAX_EVENT_BYTES, MAX_EVENTS_PER_BATCH } from '../../../shared/api/run-callbacks.js';
import { problem } from '../../../shared/api/problem.js';
import { isUuid } from '../../../shared/ids.js';
import { refuseOversizedBatch } from '../../http/refuse-oversized-batch.js';
import type { EventBatchRepo, WorkerEventRow } from './event-batch-repo.js';
import { fence, type Holder, isHeldBy, runNotFound } from './fence.js';

export interface EventBatchOutcome {
  readonly accepted: number;
  readonly duplicates: number;
  readonly last_seq: number;
}

/** 413 `event_batch_too_large` for a batch of more than MAX_EVENTS_PER_BATCH events, before its items are validated. */
export function refuseOversizedEventBatch(body: unknown): void {
  refuseOversizedBatch(body, { field: 'events', limit: MAX_EVENTS_PER_BATCH, code: 'event_batch_too_large', noun: 'events' });
}

/**
 * 413 `event_too_large` naming the first event whose JSON exceeds MAX_EVENT_BYTES. `json` is the whole
 * batch's: when even it, at the most bytes per character UTF-8 takes, is within the limit, no event can
 * exceed it and none is measured.
 */
function refuseOversizedEvents(events: readonly WorkerEventRow[], json: string): void {
  if (json.length * 3 <= MAX_EVENT_BYTES) return;
  for (const [index, event] of events.entries()) {
    if (Buffer.byteLength(JSON.stringify(event)) > MAX_EVENT_BYTES) {
      throw problem('event_too_large', `An event is at most ${MAX_EVENT_BYTES} bytes as JSON.`, { limit: MAX_EVENT_BYTES, index });
    }
  }
}

/**
 * A worker's event batch: refused whole when an event is too large, fenced (held; any status, so a run
 * a user cancelled still takes its worker's last events), deduplicated by (run, attempt, worker_seq),
 * numbered gap-free after the run's last event. One statement on the usual path; a transaction that
 * locks the run first when that statement met a concurrent retry of its own events.
 */
export class EventBatchService {
  constructor(private readonly repo: EventBatchRepo) {}

  async append(runId: string, holder: Holder, events: readonly WorkerEventRow[]): Promise<EventBatchOutcome> {
    const json = JSON.stringify(events);
    refuseOversizedEvents(events, json);
    if (!isUuid(runId)) throw runNotFound();
    const write = await this.repo.appendAtOnce(runId, holder, json);
    if (write) {
      fence(write.run, () => write.held, holder);
      // Not waited for: the batch is committed, and the worker's next batch need not wait for the streams
      // to be told (its sender waits for this answer). A lost notification is found by the streams' poll.
      if (write.accepted > 0) void this.repo.notifyCommitted(runId, write.lastSeq).catch(() => undefined);
      return { accepted: write.accepted, duplicates: events.length - write.accepted, last_seq: write.lastSeq };
    }
    return this.repo.transaction(async (trx) => {
      const run = fence(await this.repo.lock(trx, runId), (r) => isHeldBy(r, holder), holder);
      const { accepted, lastSeq } = await this.repo.appendLocked(trx, { id: runId, holder, lastSeq: Number(run.event_seq) }, json);
      return { accepted, duplicates: events.length - accepted, last_seq: lastSeq };
    });
  }
}
