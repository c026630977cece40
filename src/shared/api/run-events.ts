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
export type RunEventsPage = z.infer<typeof runEventsPage>;

/**
 * The live stream: `?ticket=` (single use), the position to resume after (with `Last-Event-ID`, the larger
 * of the two counts), and `org`, the organization (id or slug, as `X-Org-Id` takes) for a caller that cannot
 * send headers (an EventSource); it wins over `X-Org-Id`.
 */
export const runEventStreamQuery = z
  .object({
    ticket: z.string().max(128).optional(),
    last_event_id: queryNumber(9_999_999).optional(),
    org: z.string().min(1).max(100).optional(),
  })
  .strict();

/** `Last-Event-ID`: a sequence number the stream sent (decimal digits). */
export const lastEventIdHeader = z
  .string()
  .regex(/^\d{1,7}$/)
  .transform(Number);

/** The data of the stream's last frame, `event: end`: the run's terminal status. */
export const runEventStreamEnd = z.object({ status: z.string() });

/** The stream's answer as OpenAPI documents it: server-sent events (`retry:`, `id:`/`event:`/`data:` frames, `: keepalive`, `event: end`). */
export const runEventStreamText = z.string();
