import {
  lastEventIdHeader,
  runEventsPage,
  runEventsQuery,
  runEventStreamQuery,
  runEventStreamText,
} from '../../../shared/api/run-events.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { runPath } from '../../../shared/api/runs.js';
import { activeOrg } from '../../http/active-org.js';
import { requestHeader } from '../../http/request-header.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import type { RunEventsService } from './run-events-service.js';
import type { StreamAccess } from './stream-access.js';

const NOT_FOUND = { description: 'No such run in the active organization (`resource_not_found`)' };
const ORG_REF = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[a-z0-9]+(?:-[a-z0-9]+)*)$/i;

/** `Last-Event-ID`, when sent: 422 naming the header when it is not a sequence number. */
function lastEventId(ctx: AppContext): number | undefined {
  const raw = requestHeader(ctx, 'last-event-id');
  if (raw === '') return undefined;
  const parsed = lastEventIdHeader.safeParse(raw);
  if (!parsed.success) throw problems.validation([{ path: 'headers.last-event-id', message: 'must be a sequence number' }]);
  return parsed.data;
}

/** `?org=`, else `X-Org-Id`: an organization id or slug. */
function namedOrg(ctx: AppContext, query: string | undefined): string | undefined {
  const ref = query ?? (requestHeader(ctx, 'x-org-id') || undefined);
  if (ref !== undefined && (ref.length > 100 || !ORG_REF.test(ref))) {
    throw problem('invalid_org_header', 'The organization (`org` or X-Org-Id) must be one organization id or slug.');
  }
  return ref;
}

/** `GET /runs/{run_id}/events` (`run:view`) and the live stream `GET /bff/runs/{run_id}/events/stream` (`run:stream`). */
export function runEventRoutes(service: RunEventsService, access: StreamAccess): DomainRoutes {
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
    'GET /bff/runs/{run_id}/events/stream': route({
      summary:
        'A run\'s events as server-sent events: `retry: 3000`, then frames `id: <seq>`, `event: <type>`, `data: <the event as JSON>` from the position (`Last-Event-ID` or `last_event_id`, the larger; 0 by default), replayed then live, a `: keepalive` comment every SERVICE_STREAM_KEEPALIVE_SECONDS, and `event: end` with `data: {"status"}` once the run is terminal and every event was sent. Authenticated by a single-use `ticket` (from `POST /auth/bff/ticket`) or a bearer; the organization is `org` (id or slug), else `X-Org-Id`, else a personal access token\'s, else the default. A reader that falls behind is dropped; it resumes by id.',
      params: runPath,
      query: runEventStreamQuery,
      responses: {
        200: { description: 'The event stream', schema: runEventStreamText, contentType: 'text/event-stream' },
        401: { description: 'No credential, or a spent, expired or unknown ticket (`invalid_ticket`)' },
        403: { description: "A member whose role the events' policy refuses (`forbidden`)" },
        404: { description: 'No such run in the organization, or not a member of it (`resource_not_found`)' },
        503: { description: 'The instance is shutting down (`shutting_down`)' },
      },
      async handle(ctx, { params, query }) {
        const position = Math.max(lastEventId(ctx) ?? 0, query.last_event_id ?? 0);
        const auth = ctx.state.auth!;
        const org = await access.organization({ auth, orgRef: namedOrg(ctx, query.org), audit: ctx.state.audit });
        ctx.state.org = org;
        await service.checkStreamable(org.id, params.run_id);
        // The response is the stream's from here: Koa writes nothing; the finishers (access log) run when it ends.
        ctx.respond = false;
        ctx.status = 200;
        await service.stream(params.run_id, position, ctx.res);
      },
    }),
  };
}
