import { z } from 'zod';
import { queryNumber } from './query.js';

/** Wire schemas of a run's events: `GET /runs/{run_id}/events` and the frames of the live stream. */

export const runEvent = z.object({
  /** Per run, from 1, gap-free: the stream's `id:`. */
  seq: z.number().int(),
  ts: z.string(),
  /** `run.status` (the daemon's: `{from, to}`), `step.started`, `step.finished`, `log`, `handler_unavailable`, … */
  type: z.string(),
  step_id: z.string().nullable(),
  attempt: z.number().int(),
  data: z.record(z.string(), z.unknown()),
});
export type RunEvent = z.infer<typeof runEvent>;

export const MAX_EVENTS_PAGE = 1000;

/** Events after `after` (0: from the start), oldest first. */
export const runEventsQuery = z
  .object({
    after: queryNumber(9_999_999).default(0),
    limit: queryNumber(MAX_EVENTS_PAGE).pipe(z.number().min(1)).default(200),
  })
  .strict();

export const runEventsPage = z.object({
  items: z.array(runEvent),
  /** The `after` of the next page (the last item's seq), or null when the page reached the run's last event. */
  next_after: z.number().int().nullable(),
  /** The run's status now: a client stops paging a finished run once `next_after` is null. */
  run_status: z.string(),
});

/** The live stream: `?ticket=` (single use), and the position to resume after (else `Last-Event-ID`). */
export const runEventStreamQuery = z
  .object({
    ticket: z.string().max(128).optional(),
    last_event_id: queryNumber(9_999_999).optional(),
  })
  .strict();
