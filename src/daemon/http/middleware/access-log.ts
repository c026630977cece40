import type { Logger } from '../../logging/logger.js';
import type { Finisher } from '../types.js';

/** One structured line per request, after its answer. The query string is left out: it can carry a stream ticket. */
export function accessLog(log: Logger): Finisher {
  return function logAccess(ctx, started) {
    if (!log.isLevelEnabled('info')) return;
    const mounted = ctx.state.mounted;
    ctx.state.log.info(
      {
        method: ctx.method,
        path: ctx.path,
        route: mounted?.route.path,
        action: mounted?.route.action,
        status: ctx.status,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        client_ip: ctx.state.clientIp,
      },
      'request',
    );
  };
}
