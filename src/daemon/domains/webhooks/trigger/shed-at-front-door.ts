import { CATALOGUE } from '../../../../shared/catalogue/catalogue.js';
import { answerEarly, type EarlyAnswerOptions } from '../../../http/early-answer.js';
import type { FrontDoorCheck } from '../../../http/front-door.js';
import { ProblemBodies } from '../../../http/middleware/problem-response.js';
import type { IngressBackstop } from '../../../webhooks/ingress-backstop.js';
import { rateLimited } from './trigger-problems.js';

const ROUTE = CATALOGUE.routeByKey.get('POST /hooks/{path_token}')!;
const PREFIX = '/hooks/';
const SLASH = 47;
const PERCENT = 37;

export interface ShedOptions extends Omit<EarlyAnswerOptions, 'bodies'> {
  readonly isDraining: () => boolean;
}

/**
 * The global backstop at the front door: a trigger it sheds is answered before Koa makes a context, so
 * under a flood a refusal costs a fraction of an answered request. Only requests whose outcome is sure
 * without the request path are judged here: `POST /hooks/<token>` with the token as written (no further
 * segment, nothing percent-encoded to decode) while the instance is not draining. The route is public and
 * no override can change that (a structural policy), so the request path would refuse nothing before the
 * trigger. Anything else goes through the request path, where the trigger charges the same backstop (once
 * per request).
 */
export function shedAtFrontDoor(backstop: IngressBackstop, options: ShedOptions): FrontDoorCheck {
  const early = { ...options, bodies: new ProblemBodies() };
  return function shedTrigger(req, res) {
    if (req.method !== 'POST') return false;
    const url = req.url!;
    if (!url.startsWith(PREFIX)) return false;
    const query = url.indexOf('?', PREFIX.length);
    const end = query < 0 ? url.length : query;
    if (end === PREFIX.length) return false;
    for (let i = PREFIX.length; i < end; i++) {
      const c = url.charCodeAt(i);
      if (c === SLASH || c === PERCENT) return false;
    }
    if (options.isDraining()) return false;
    const taken = backstop.charge(req);
    if (taken.ok) return false;
    answerEarly(req, res, ROUTE, rateLimited(taken.retryAfterSeconds, 'global'), early);
    return true;
  };
}
