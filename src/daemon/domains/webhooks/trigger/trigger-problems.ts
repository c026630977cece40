import { type Problem, problem } from '../../../../shared/api/problem.js';

export type TriggerLimit = 'global' | 'endpoint_ingress' | 'endpoint_delivery';

/**
 * One Problem per limit and wait, made on first use: a flood is answered with the same few objects (and
 * the body text each keeps) instead of a new one per refusal. Bounded: a wait is at most a minute.
 */
const rateLimitedProblems = new Map<string, Problem>();

export function rateLimited(retryAfterSeconds: number, limit: TriggerLimit): Problem {
  const key = `${limit} ${retryAfterSeconds}`;
  let refusal = rateLimitedProblems.get(key);
  if (!refusal) {
    refusal = problem(
      'rate_limited',
      'Too many webhook requests; retry after `Retry-After` seconds.',
      { limit },
      { 'Retry-After': String(retryAfterSeconds) },
    );
    if (rateLimitedProblems.size < 1000) rateLimitedProblems.set(key, refusal);
  }
  return refusal;
}

export function endpointNotFound(): Problem {
  return problem('resource_not_found', 'No enabled webhook endpoint has this address.');
}
