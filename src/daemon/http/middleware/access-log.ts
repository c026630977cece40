import type { Logger } from '../../logging/logger.js';
import type { Step } from '../types.js';

/**
 * One structured line per request. The query string is left out: it can carry a stream ticket.
 * Errors never reach this step (problemResponse, inside it, answers them), so a plain `.then` suffices.
 */
export function accessLog(log: Logger): Step {
  return function accessLogStep(ctx, next) {
    if (!log.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    return next().then(() => {
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
    });
  };
}
