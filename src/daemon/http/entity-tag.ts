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
 * `If-Match` (RFC 9110 13.1.1) against the current tag: absent or `*` passes (the resource exists); else
 * one of the listed tags must be it, compared strongly (a weak `W/` tag never matches).
 */
export function ifMatchHolds(header: string | undefined, current: string): boolean {
  if (header === undefined || header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim() === current);
}

/** 412 `precondition_failed`, naming the current tag so the caller can read again and retry. */
export function preconditionFailed(what: string, current: string): Problem {
  return problem('precondition_failed', `The ${what} changed since it was read (If-Match does not name its current version).`, {
    etag: current,
  });
}

/** `view` as the answer, with its entity tag as `ETag`. */
export function answerTagged(ctx: AppContext, view: unknown): void {
  ctx.set('ETag', entityTag(view));
  ctx.body = view;
}

/** The request's `If-Match`, undefined when it sent none. */
export function ifMatchOf(ctx: AppContext): string | undefined {
  return ctx.get('if-match') || undefined;
}
