import { MAX_EVENT_BYTES, MAX_EVENTS_PER_BATCH } from '../../../shared/api/run-callbacks.js';
import { problem } from '../../../shared/api/problem.js';
import { isUuid } from '../../../shared/ids.js';
import type { EventBatchRepo, WorkerEventRow } from './event-batch-repo.js';
import { fence, type Holder, isHeldBy, runNotFound } from './fence.js';

export interface EventBatchOutcome {
  readonly accepted: number;
  readonly duplicates: number;
  readonly last_seq: number;
}

/**
 * 413 `event_batch_too_large` for a batch of more than MAX_EVENTS_PER_BATCH events: checked on the body as
 * sent, before its items are validated (a huge batch costs no per-item work).
 */
export function refuseOversizedBatch(body: unknown): void {
  const events = (body as { events?: unknown } | undefined)?.events;
  if (Array.isArray(events) && events.length > MAX_EVENTS_PER_BATCH) {
    throw problem('event_batch_too_large', `A batch holds at most ${MAX_EVENTS_PER_BATCH} events.`, {
      limit: MAX_EVENTS_PER_BATCH,
      count: events.length,
    });
  }
}

/** 413 `event_too_large` naming the first event whose JSON exceeds MAX_EVENT_BYTES. */
function refuseOversizedEvents(events: readonly WorkerEventRow[]): void {
  for (const [index, event] of events.entries()) {
    // Cheap bound first: a string's UTF-8 size is at most three bytes per UTF-16 unit.
    const json = JSON.stringify(event);
    if (json.length * 3 > MAX_EVENT_BYTES && Buffer.byteLength(json) > MAX_EVENT_BYTES) {
      throw problem('event_too_large', `An event is at most ${MAX_EVENT_BYTES} bytes as JSON.`, { limit: MAX_EVENT_BYTES, index });
    }
  }
}

/**
 * A worker's event batch: refused whole when an event is too large, fenced (held; any status, so a run
 * a user cancelled still takes its worker's last events), deduplicated by (run, attempt, worker_seq),
 * numbered gap-free after the run's last event.
 */
export class EventBatchService {
  constructor(private readonly repo: EventBatchRepo) {}

  async append(runId: string, holder: Holder, events: readonly WorkerEventRow[]): Promise<EventBatchOutcome> {
    refuseOversizedEvents(events);
    if (!isUuid(runId)) throw runNotFound();
    return this.repo.transaction(async (trx) => {
      const run = fence(await this.repo.lock(trx, runId), (r) => isHeldBy(r, holder), holder);
      const { accepted, lastSeq } = await this.repo.append(
        trx,
        { id: runId, attempt: run.attempt, workerId: holder.workerId, lastSeq: Number(run.event_seq) },
        events,
      );
      return { accepted, duplicates: events.length - accepted, last_seq: lastSeq };
    });
  }
}
