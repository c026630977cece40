import { resolveClientAddress } from '../client-address.js';
import type { Step } from '../types.js';
import { requestHeader } from '../request-header.js';

export function clientAddress(trustProxyHeaders: boolean): Step {
  return function clientAddressStep(ctx) {
    // The header is read only when it is trusted: otherwise it could not change the answer.
    const forwardedFor = trustProxyHeaders ? requestHeader(ctx, 'x-forwarded-for') || undefined : undefined;
    ctx.state.clientIp = resolveClientAddress(ctx.req.socket.remoteAddress, forwardedFor, trustProxyHeaders);
  };
}
