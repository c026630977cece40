import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CatalogueRoute } from '../../shared/catalogue/types.js';
import type { Logger } from '../logging/logger.js';
import { logAccessLine } from './middleware/access-log.js';
import { clientAddressOf } from './middleware/client-address.js';
import { problemBody, setProblemHeaders, type ProblemBodies } from './middleware/problem-response.js';
import { requestIdFor } from './middleware/request-id.js';
import { SECURITY_HEADERS } from './middleware/security-headers.js';
import type { Problem } from '../../shared/api/problem.js';
import { headerOf } from './request-header.js';

export interface EarlyAnswerOptions {
  readonly log: Logger;
  readonly trustProxyHeaders: boolean;
  /** The answerer's bodies, when it answers the same Problems again and again (see `ProblemBodies`). */
  readonly bodies?: ProblemBodies;
}

/**
 * Answers `problem` on Node's response before Koa makes a context for the request, with what the request
 * path would have sent for the same Problem on `route`: the request id (the caller's when well formed),
 * the security headers, the Problem's own headers, the problem+json body, and the same access-log line.
 */
export function answerEarly(
  req: IncomingMessage,
  res: ServerResponse,
  route: CatalogueRoute,
  problem: Problem,
  options: EarlyAnswerOptions,
): void {
  const started = process.hrtime.bigint();
  const requestId = requestIdFor(headerOf(req, 'x-request-id'));
  res.statusCode = problem.status;
  res.setHeader('X-Request-Id', requestId);
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
  setProblemHeaders(res, problem);
  const body = options.bodies ? options.bodies.body(problem, requestId) : problemBody(problem, requestId);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
  if (!options.log.isLevelEnabled('info')) return;
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  logAccessLine(options.log.child({ request_id: requestId }), {
    method: req.method ?? '',
    path: query < 0 ? url : url.slice(0, query),
    route,
    status: problem.status,
    started,
    clientIp: clientAddressOf(req, options.trustProxyHeaders),
  });
}
