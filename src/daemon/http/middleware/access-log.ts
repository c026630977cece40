import type { CatalogueRoute } from '../../../shared/catalogue/types.js';
import type { Logger } from '../../logging/logger.js';
import type { Finisher } from '../types.js';

/** What one access-log line says; the query string is left out, as it can carry a stream ticket. */
export interface AccessFacts {
  readonly method: string;
  readonly path: string;
  readonly route: CatalogueRoute | undefined;
  readonly status: number;
  readonly started: bigint;
  readonly clientIp: string;
}

/** One access-log line, on the request's logger. */
export function logAccessLine(requestLog: Logger, facts: AccessFacts): void {
  requestLog.info(
    {
      method: facts.method,
      path: facts.path,
      route: facts.route?.path,
      action: facts.route?.action,
      status: facts.status,
      duration_ms: Number(process.hrtime.bigint() - facts.started) / 1e6,
      client_ip: facts.clientIp,
    },
    'request',
  );
}

/** One structured line per request, after its answer. */
export function accessLog(log: Logger): Finisher {
  return function logAccess(ctx, started) {
    if (!log.isLevelEnabled('info')) return;
    logAccessLine(ctx.state.log, {
      method: ctx.method,
      path: ctx.path,
      route: ctx.state.mounted?.route,
      status: ctx.status,
      started,
      clientIp: ctx.state.clientIp,
    });
  };
}
