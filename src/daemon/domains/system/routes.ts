import { healthAnswer, readyAnswer } from '../../../shared/api/system.js';
import type { Database } from '../../db/database.js';
import { problems } from '../../../shared/api/problems.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';

export interface SystemDeps {
  readonly db: Database;
  /** True once shutdown has begun: the instance stops reporting ready so balancers drain it. */
  readonly isDraining: () => boolean;
  /** False until migrations have run (the database may have been down at start-up). */
  readonly isSchemaReady: () => boolean;
}

/** Liveness (`/health`: the process answers) and readiness (`/ready`: the database answers too). */
export function systemRoutes({ db, isDraining, isSchemaReady }: SystemDeps): DomainRoutes {
  return {
    'GET /health': route({
      summary: 'Liveness: the process is up.',
      responses: { 200: { description: 'Alive', schema: healthAnswer } },
      handle(ctx) {
        ctx.body = { status: 'ok' };
      },
    }),
    'GET /ready': route({
      summary: 'Readiness: the database answers and the instance is not shutting down.',
      responses: { 200: { description: 'Ready', schema: readyAnswer }, 503: { description: 'Not ready' } },
      async handle(ctx) {
        if (isDraining()) throw problems.shuttingDown();
        try {
          if (!isSchemaReady()) throw new Error('schema not migrated yet');
          await db.ping();
        } catch (error) {
          ctx.state.log.warn({ err: error }, 'readiness check: database unavailable');
          throw problems.databaseUnavailable();
        }
        ctx.body = { status: 'ready', database: db.kind };
      },
    }),
  };
}
