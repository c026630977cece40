import { createHash } from 'node:crypto';
import { problem, type Problem } from '../../shared/api/problem.js';
import type { AppContext } from './types.js';

/**
 * A representation's strong entity tag: a digest of its JSON, so any change of what a reader sees (its
 * `updated_at` among it) gives a new tag, whichever daemon answers.
 */
export function entityTag(view: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(view)).digest('base64url').slice(0, 27)}"`;
}

/**
 * `If-Match` (RFC 9110 13.1.1) against the current tag: `*` passes (the resource exists); else one of the
 * listed tags must be it, compared strongly (a weak `W/` tag never matches).
 */
function ifMatchHolds(header: string, current: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim() === current);
}

/**
 * `If-None-Match` (RFC 9110 13.1.2) against the current tag: `*` or one of the listed tags, compared weakly
 * (`W/"x"` matches `"x"`: a proxy that compresses an answer weakens its tag, and clients send that back).
 */
export function noneMatchHolds(header: string, current: string): boolean {
  if (header === '') return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(current));
}

/** 412 `precondition_failed`, naming the current tag so the caller can read again and retry. */
function preconditionFailed(what: string, current: string): Problem {
  return problem('precondition_failed', `The ${what} changed since it was read (If-Match does not name its current version).`, {
    etag: current,
  });
}

/**
 * 412 unless `ifMatch` (the request's `If-Match`, when it sent one) names the current version of the
 * resource, `view()` being what a read of it answers now (computed only when there is a header to check).
 */
export function refuseIfChanged(ifMatch: string | undefined, view: () => unknown, what: string): void {
  if (ifMatch === undefined) return;
  const current = entityTag(view());
  if (!ifMatchHolds(ifMatch, current)) throw preconditionFailed(what, current);
}

/**
 * `view` as the answer, with the entity tag of `version` as `ETag`: the view itself unless the resource
 * shows what no edit changes (a schedule's fire state), which would otherwise make a tag stale unedited.
 */
export function answerTagged(ctx: AppContext, view: unknown, version: unknown = view): void {
  ctx.set('ETag', entityTag(version));
  ctx.body = view;
}

/** The 412 of a route taking `If-Match`, as its `responses` declare it. */
export const PRECONDITION_FAILED = {
  description: '`If-Match` names a version that is no longer current (`precondition_failed`, `etag` the current one); nothing changed',
} as const;

/** What a route's summary says of its `If-Match`. */
export const IF_MATCH_NOTE =
  'With `If-Match` (the `ETag` of a GET), only the version read is changed: another is 412 `precondition_failed`.';

/** The request's `If-Match`, undefined when it sent none. */
export function ifMatchOf(ctx: AppContext): string | undefined {
  return ctx.get('if-match') || undefined;
}
