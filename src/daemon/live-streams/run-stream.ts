import type { z } from 'zod';
import { problem } from '../../shared/api/problem.js';
import { problems } from '../../shared/api/problems.js';
import { lastEventIdHeader, runEventStreamQuery } from '../../shared/api/run-events.js';
import { runPath } from '../../shared/api/runs.js';
import { isUuid } from '../../shared/ids.js';
import { requestHeader } from '../http/request-header.js';
import { route } from '../http/route.js';
import type { AppContext, RouteBinding } from '../http/types.js';
import type { Services } from '../services.js';
import { type LiveHub, liveHub, type LiveSource } from './live-hub.js';
import { LiveStream } from './live-stream.js';
import { StreamAccess, type StreamRoutes } from './stream-access.js';

const ORG_REF = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[a-z0-9]+(?:-[a-z0-9]+)*)$/i;

/** What every live stream's route answers besides its 200, as OpenAPI documents it. */
const STREAM_REFUSALS = {
  401: { description: 'No credential, or a spent, expired or unknown ticket (`invalid_ticket`)' },
  403: { description: "A member whose role the read's policy refuses (`forbidden`)" },
  404: { description: 'No such run in the organization, or not a member of it (`resource_not_found`)' },
  422: { description: 'A malformed `Last-Event-ID` or query (`validation_failed`), or organization (`invalid_org_header`)' },
  503: { description: 'The instance is shutting down (`shutting_down`)' },
} as const;

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

export interface RunStreamQuery {
  readonly last_event_id?: number | undefined;
  readonly org?: string | undefined;
}

/**
 * A run's live stream as a route serves it, whatever it carries (events, monitor samples): the position
 * (`Last-Event-ID` or `last_event_id`, the larger), the organization and its policy (StreamAccess), 404
 * for a run that is not the organization's, 503 once the daemon stops, then the response taken over from
 * Koa and handed to the hub until the stream ends.
 */
export class RunStreams {
  constructor(
    private readonly hub: LiveHub,
    private readonly access: StreamAccess,
    /** Whether the live run exists in the organization. */
    private readonly runExists: (orgId: string, runId: string) => Promise<boolean>,
  ) {}

  async serve(ctx: AppContext, runId: string, query: RunStreamQuery): Promise<void> {
    const position = Math.max(lastEventId(ctx) ?? 0, query.last_event_id ?? 0);
    const org = await this.access.organization({ auth: ctx.state.auth!, orgRef: namedOrg(ctx, query.org), audit: ctx.state.audit });
    ctx.state.org = org;
    if (this.hub.closed) throw problems.shuttingDown();
    if (!isUuid(runId) || !(await this.runExists(org.id, runId))) throw problems.resourceNotFound('Run');
    // The response is the stream's from here: Koa writes nothing; the finishers (access log) run when it ends.
    ctx.respond = false;
    ctx.status = 200;
    // `runId` is in lower case (`runPath`'s `pathId`), as notifications name the run: a stream kept under
    // the path's capitals would hear none of them and wait for the poll.
    const stream = new LiveStream(runId, ctx.res, position);
    this.hub.add(stream);
    await stream.closed;
  }
}

/**
 * The route of a run's live stream (`GET …/{run_id}/…/stream`): the run in the path, the stream query
 * (`ticket`, `last_event_id`, `org`), the refusals every stream shares, and `200 text/event-stream`
 * documented as `text` (a string schema).
 */
export function runStreamRoute(streams: RunStreams, doc: { summary: string; description: string; text: z.ZodString }): RouteBinding {
  return route({
    summary: doc.summary,
    params: runPath,
    query: runEventStreamQuery,
    responses: {
      200: { description: doc.description, schema: doc.text, contentType: 'text/event-stream' },
      ...STREAM_REFUSALS,
    },
    async handle(ctx, { params, query }) {
      await streams.serve(ctx, params.run_id, query);
    },
  });
}

/**
 * One kind of live run stream for a domain's module: its hub over `source` (the daemon starts and stops
 * it) and the streams its route serves, decided as `routes.read` is; `runExists` says whether the live
 * run is the organization's.
 */
export function liveRunStreams(
  services: Services,
  stream: { source: LiveSource; routes: StreamRoutes; runExists: (orgId: string, runId: string) => Promise<boolean> },
): { hub: LiveHub; streams: RunStreams } {
  const hub = liveHub(services, stream.source);
  const access = new StreamAccess(services.orgAccess, services.overrideStore, services.audit, stream.routes);
  return { hub, streams: new RunStreams(hub, access, stream.runExists) };
}
