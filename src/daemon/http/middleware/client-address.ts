import type { IncomingMessage } from 'node:http';
import { resolveClientAddress } from '../client-address.js';
import type { Step } from '../types.js';
import { headerOf } from '../request-header.js';

/** The client address of Node's request: the peer, or the first trusted `X-Forwarded-For` hop. */
export function clientAddressOf(req: IncomingMessage, trustProxyHeaders: boolean): string {
  // The header is read only when it is trusted: otherwise it could not change the answer.
  const forwardedFor = trustProxyHeaders ? headerOf(req, 'x-forwarded-for') || undefined : undefined;
  return resolveClientAddress(req.socket.remoteAddress, forwardedFor, trustProxyHeaders);
}

export function clientAddress(trustProxyHeaders: boolean): Step {
  return function clientAddressStep(ctx) {
    ctx.state.clientIp = clientAddressOf(ctx.req, trustProxyHeaders);
  };
}
