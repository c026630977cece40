import {
  envKey,
  envKeyBody,
  envKeyPath,
  heartbeatAnswer,
  heartbeatBody,
  workerList,
  workerListQuery,
} from '../../../shared/api/workers.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import type { EnvKeysService } from './env-keys-service.js';
import type { HeartbeatService } from './heartbeat-service.js';
import type { WorkersService } from './workers-service.js';

export interface WorkerRouteServices {
  readonly heartbeat: HeartbeatService;
  readonly workers: WorkersService;
  readonly envKeys: EnvKeysService;
}

/** Aborts when the caller hangs up before its answer was sent: a waiting heartbeat then claims nothing for it. */
function hangUpSignal(ctx: AppContext): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** `internal:worker_registry` (the heartbeat, env keys) and `worker:view` (the list). */
export function workerRoutes(services: WorkerRouteServices): DomainRoutes {
  return {
    'POST /internal/workers/heartbeat': route({
      summary:
        "A worker's heartbeat and claim (docs/workers.md): renews the leases of the runs it names in `running`, takes back `released` runs, answers which of its runs were cancelled, paused or lost, and hands it up to `free_slots` queued runs, oldest first. With nothing to say and `wait_s` > 0 it waits (long-poll) until a run is queued or one of its runs changes.",
      body: heartbeatBody,
      responses: { 200: { description: '`assignments`, `cancel`, `pause`, `lost`, `heartbeat_s`, `lease_s`', schema: heartbeatAnswer } },
      async handle(ctx, { body }) {
        ctx.body = await services.heartbeat.beat(body, { signal: hangUpSignal(ctx), context: ctx.state.audit });
      },
    }),
    'GET /workers': route({
      summary: 'Workers as their heartbeats describe them, newest seen first; `status` online (seen within one lease) or offline.',
      query: workerListQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: workerList } },
      async handle(ctx, { query }) {
        ctx.body = await services.workers.list(query);
      },
    }),
    'POST /internal/runtime/env-keys': route({
      summary:
        "Registers the worker's public key for values sealed to it (`ECDH-ES+A256KW`: an EC or X25519 key; `RSA-OAEP-256`: an RSA key), replacing the one it had. A private key is refused (422).",
      body: envKeyBody,
      responses: {
        200: { description: 'The key, replacing an earlier one', schema: envKey },
        201: { description: 'The key, the first of this worker', schema: envKey },
        422: { description: '`validation_failed`: malformed, a private member (`public_key_jwk.d`), or not a key of the algorithm' },
      },
      async handle(ctx, { body }) {
        const { key, created } = await services.envKeys.put(body);
        ctx.status = created ? 201 : 200;
        ctx.body = key;
      },
    }),
    'DELETE /internal/runtime/env-keys/{worker_id}': route({
      summary: "Removes the worker's key.",
      params: envKeyPath,
      responses: { 204: { description: 'Removed' }, 404: { description: 'The worker has no key (`resource_not_found`)' } },
      async handle(ctx, { params }) {
        await services.envKeys.remove(params.worker_id);
        ctx.status = 204;
      },
    }),
  };
}
