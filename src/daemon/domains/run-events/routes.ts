import { runEventsPage, runEventsQuery, runEventStreamText } from '../../../shared/api/run-events.js';
import { runPath } from '../../../shared/api/runs.js';
import { activeOrg } from '../../http/active-org.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { type RunStreams, runStreamRoute } from '../../live-streams/run-stream.js';
import type { RunEventsService } from './run-events-service.js';

const NOT_FOUND = { description: 'No such run in the active organization (`resource_not_found`)' };

/** `GET /runs/{run_id}/events` (`run:view`) and the live stream `GET /bff/runs/{run_id}/events/stream` (`run:stream`). */
export function runEventRoutes(service: RunEventsService, streams: RunStreams): DomainRoutes {
  return {
    'GET /runs/{run_id}/events': route({
      summary:
        "A run's events, oldest first: `after` (a sequence number, 0 from the start), `limit` (200, ≤ 1000). `next_after` is the next page's `after`, null once the page reached the run's last event; `run_status` is the run's status now.",
      params: runPath,
      query: runEventsQuery,
      responses: { 200: { description: '`items`, `next_after`, `run_status`', schema: runEventsPage }, 404: NOT_FOUND },
      async handle(ctx, { params, query }) {
        ctx.body = await service.page(activeOrg(ctx).id, params.run_id, query.after, query.limit);
      },
    }),
    'GET /bff/runs/{run_id}/events/stream': runStreamRoute(streams, {
      summary:
        'A run\'s events as server-sent events: `retry: 3000`, then frames `id: <seq>`, `event: <type>`, `data: <the event as JSON>` from the position (`Last-Event-ID` or `last_event_id`, the larger; 0 by default), replayed then live, a `: keepalive` comment every SERVICE_STREAM_KEEPALIVE_SECONDS, and `event: end` with `data: {"status"}` once the run is terminal and every event was sent. Authenticated by a single-use `ticket` (from `POST /auth/bff/ticket`) or a bearer; the organization is `org` (id or slug), else `X-Org-Id`, else a personal access token\'s, else the default. A reader that falls behind is dropped; it resumes by id.',
      description: 'The event stream',
      text: runEventStreamText,
    }),
  };
}
