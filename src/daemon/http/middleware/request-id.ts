import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logging/logger.js';
import { requestHeader } from '../request-header.js';
import { RequestState } from '../request-state.js';
import { setResponseHeader } from '../response-header.js';
import type { Step } from '../types.js';

const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

/** The caller's `X-Request-Id` when it is well formed ('' when absent), otherwise a new one. */
export function requestIdFor(given: string): string {
  return WELL_FORMED.test(given) ? given : randomUUID();
}

/**
 * Accepts a caller's `X-Request-Id` when it is well formed (so traces join up), otherwise makes one, and
 * starts the request's state with it (the request's logger included, made only if something logs).
 */
export function requestId(log: Logger): Step {
  return function requestIdStep(ctx) {
    const id = requestIdFor(requestHeader(ctx, 'x-request-id'));
    ctx.state = new RequestState(id, log);
    setResponseHeader(ctx, 'X-Request-Id', id);
  };
}
