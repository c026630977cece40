import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logging/logger.js';
import type { Step } from '../types.js';

const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

/** Accepts a caller's `X-Request-Id` when it is well formed (so traces join up), otherwise makes one. */
export function requestId(log: Logger): Step {
  return function requestIdStep(ctx, next) {
    const given = ctx.get('x-request-id');
    const id = WELL_FORMED.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.state.log = log.child({ request_id: id });
    ctx.state.params = {};
    ctx.set('X-Request-Id', id);
    return next();
  };
}
