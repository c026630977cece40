import { z } from 'zod';
import { storableTime } from './storable-time.js';
import { pathId } from './id-schemas.js';

/** Wire schemas of the personal access token routes (`/api-tokens`): the daemon validates and documents with them, the CLI's types are inferred from them. */

export const MAX_LIFETIME_DAYS = 366;

export const createTokenBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    username: z.string().min(1).max(255).optional(),
    org: z.string().min(1).max(100).optional(),
    expires_at: storableTime.optional(),
    expires_in_days: z.number().int().min(1).max(MAX_LIFETIME_DAYS).optional(),
  })
  .strict()
  .refine((body) => !(body.expires_at && body.expires_in_days), {
    message: 'give expires_at or expires_in_days, not both',
    path: ['expires_at'],
  });

export const listTokensQuery = z
  .object({
    username: z.string().min(1).optional(),
    org: z.string().min(1).optional(),
    include_revoked: z.enum(['true', 'false']).optional(),
  })
  .strict();

/** `token_id` stays a string: one that is not a UUID is answered 404, as an unknown one. */
export const tokenPath = z.object({ token_id: pathId });
export const tokenUserPath = z.object({ username: z.string() });

/** A personal access token's record (never its plaintext, except once at creation). */
export const patView = z.object({
  id: z.string(),
  name: z.string(),
  token_prefix: z.string(),
  user: z.object({ id: z.string(), username: z.string() }),
  org: z.object({ id: z.string(), slug: z.string() }),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  created_at: z.string(),
  created_by: z.string().nullable(),
});
export type PatView = z.infer<typeof patView>;

/** The creation's answer: the record and, this once, the plaintext `token`. */
export const createdToken = patView.extend({ token: z.string() });
export type CreatedToken = z.infer<typeof createdToken>;

export const tokenList = z.object({ items: z.array(patView) });
export type TokenList = z.infer<typeof tokenList>;

export const revokedTokens = z.object({ revoked: z.number().int() });
export type RevokedTokens = z.infer<typeof revokedTokens>;
