import { connect } from 'node:net';
import { attemptSignal, elapsedSince, failed, networkFailure, passed, type CheckOutcome } from './outcome.js';

/** A TCP connection to `host:port` within the timeout: reachable when the handshake completes (then closed). */
export function tcpConnect(host: string, port: number, timeoutMs: number, runSignal: AbortSignal): Promise<CheckOutcome> {
  const signal = attemptSignal(runSignal, timeoutMs);
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect({ host: unbracketed(host), port });
    const done = (outcome: CheckOutcome) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(outcome);
    };
    const onAbort = () => done(failed('timeout', `no connection within ${timeoutMs} ms`));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done(passed(elapsedSince(started))));
    socket.once('error', (error) => done(networkFailure(error, started)));
  });
}

/** An IPv6 address may be written `[::1]`; sockets want it bare. */
export function unbracketed(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
