import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/** Answers a request itself (true), or leaves it to the app (false). */
export type FrontDoorCheck = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The server's request listener: the checks look at each request before Koa makes a context for it, so a
 * refusal whose point is to cost less than the work it prevents (load shedding) does; what they leave
 * goes to the app.
 */
export function frontDoor(app: RequestListener, checks: readonly FrontDoorCheck[]): RequestListener {
  if (checks.length === 0) return app;
  return function frontDoorListener(req, res) {
    for (const check of checks) if (check(req, res)) return;
    app(req, res);
  };
}
