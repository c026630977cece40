import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** Field rules of a webhook endpoint that do not need the database. */

export const WEBHOOK_AUTH_MODES = ['hmac_sha256', 'bearer'] as const;
export type WebhookAuthMode = (typeof WEBHOOK_AUTH_MODES)[number];

/** Defaults of the spec, and the bounds chosen here where it names none (docs/webhooks.md says why). */
export const WEBHOOK_DEFAULTS = {
  authMode: 'hmac_sha256',
  enabled: true,
  replayWindowSeconds: 300,
  rateLimitPerMinute: 60,
} as const satisfies { authMode: WebhookAuthMode; enabled: boolean; replayWindowSeconds: number; rateLimitPerMinute: number };

export const WEBHOOK_BOUNDS = {
  replayWindowSeconds: { min: 1, max: 86_400 },
  rateLimitPerMinute: { min: 1, max: 100_000 },
  nameLength: 128,
  wordLength: 64,
} as const;

// Code points, so a name of 128 emoji is 128 characters, not 256 UTF-16 units.
const length = (text: string) => [...text].length;
const CONTROL = /\p{Cc}/u;

/** What is wrong with an already trimmed name (empty when nothing). */
export function webhookNameIssues(name: string): string[] {
  const issues: string[] = [];
  if (name === '') issues.push('must not be blank');
  if (length(name) > WEBHOOK_BOUNDS.nameLength) issues.push(`must be at most ${WEBHOOK_BOUNDS.nameLength} characters`);
  if (name.split(/\s+/).some((word) => length(word) > WEBHOOK_BOUNDS.wordLength))
    issues.push(`must have no word longer than ${WEBHOOK_BOUNDS.wordLength} characters`);
  if (CONTROL.test(name)) issues.push('must not contain control characters');
  return issues;
}

/** The name as stored: trimmed first, then checked (a tab inside is refused, one at the end trimmed). */
export const webhookNameSchema = z
  .string()
  .trim()
  .superRefine((name, ctx) => {
    for (const message of webhookNameIssues(name)) ctx.addIssue({ code: 'custom', message });
  });

export const webhookAuthModeSchema = z.enum(WEBHOOK_AUTH_MODES);
export const replayWindowSecondsSchema = z.int().min(WEBHOOK_BOUNDS.replayWindowSeconds.min).max(WEBHOOK_BOUNDS.replayWindowSeconds.max);
export const rateLimitPerMinuteSchema = z.int().min(WEBHOOK_BOUNDS.rateLimitPerMinute.min).max(WEBHOOK_BOUNDS.rateLimitPerMinute.max);

const PATH_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A new `path_token`: 256 random bits, base64url without padding (43 characters). Never taken from a client. */
export function generatePathToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Whether a path segment could be a token at all; the trigger route answers 404 to anything else
 * without a query. Tokens of another shape (imported from an older system, up to 64 characters) would
 * need this relaxed.
 */
export function isPathTokenShape(segment: string): boolean {
  return PATH_TOKEN.test(segment);
}
