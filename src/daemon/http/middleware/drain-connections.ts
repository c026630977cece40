import type { Finisher } from '../types.js';

/**
 * During shutdown, answers in-flight requests with `Connection: close`, so keep-alive connections end
 * with their last response instead of holding the process open until their idle timeout.
 */
export function drainConnections(isDraining: () => boolean): Finisher {
  return function closeWhenDraining(ctx) {
    if (isDraining()) ctx.set('Connection', 'close');
  };
}
