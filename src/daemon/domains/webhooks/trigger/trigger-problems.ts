import { Problem } from '../../../http/problem.js';

export type TriggerLimit = 'global' | 'endpoint_ingress' | 'endpoint_delivery';

/**
 * One Problem per limit and wait, made on first use: a flood is answered with the same few objects (and
 * the body text each keeps) instead of a new one per refusal. Bounded: a wait is at most a minute.
 */
const rateLimitedProblems = new Map<string, Problem>();

export function rateLimited(retryAfterSeconds: number, limit: TriggerLimit): Problem {
  const key = `${limit} ${retryAfterSeconds}`;
  let problem = rateLimitedProblems.get(key);
  if (!problem) {
    problem = new Problem(
      429,
      'rate_limited',
      'Too many webhook requests; retry after `Retry-After` seconds.',
      { limit },
      { 'Retry-After': String(retryAfterSeconds) },
    );
    if (rateLimitedProblems.size < 1000) rateLimitedProblems.set(key, problem);
  }
  return problem;
}

export function endpointNotFound(): Problem {
  return new Problem(404, 'resource_not_found', 'No enabled webhook endpoint has this address.');
}
