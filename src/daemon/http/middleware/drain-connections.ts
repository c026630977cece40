import type { Step } from '../types.js';

/**
 * During shutdown, answers in-flight requests with `Connection: close`, so keep-alive connections end
 * with their last response instead of holding the process open until their idle timeout.
 */
export function drainConnections(isDraining: () => boolean): Step {
  return function drainConnectionsStep(ctx, next) {
    return next().then(() => {
      if (isDraining()) ctx.set('Connection', 'close');
    });
  };
}
