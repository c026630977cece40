import { resolveClientAddress } from '../client-address.js';
import type { Step } from '../types.js';

export function clientAddress(trustProxyHeaders: boolean): Step {
  return function clientAddressStep(ctx, next) {
    ctx.state.clientIp = resolveClientAddress(ctx.req.socket.remoteAddress, ctx.get('x-forwarded-for') || undefined, trustProxyHeaders);
    return next();
  };
}
