import { z } from 'zod';
import type { PatService } from '../../auth/pat/pat-service.js';
import { problems } from '../../../shared/api/problems.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';

const MAX_LIFETIME_DAYS = 366;

export const createTokenSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    username: z.string().min(1).max(255).optional(),
    org: z.string().min(1).max(100).optional(),
    expires_at: z.iso.datetime({ offset: true }).optional(),
    expires_in_days: z.number().int().min(1).max(MAX_LIFETIME_DAYS).optional(),
  })
  .strict()
  .refine((body) => !(body.expires_at && body.expires_in_days), {
    message: 'give expires_at or expires_in_days, not both',
    path: ['expires_at'],
  });

const listQuerySchema = z
  .object({
    username: z.string().min(1).optional(),
    org: z.string().min(1).optional(),
    include_revoked: z.enum(['true', 'false']).optional(),
  })
  .strict();

function expiryOf(body: z.output<typeof createTokenSchema>): Date | null {
  if (body.expires_in_days) return new Date(Date.now() + body.expires_in_days * 86_400_000);
  if (!body.expires_at) return null;
  const at = new Date(body.expires_at);
  if (at.getTime() <= Date.now()) throw problems.validation([{ path: 'expires_at', message: 'must be in the future' }]);
  if (at.getTime() > Date.now() + MAX_LIFETIME_DAYS * 86_400_000)
    throw problems.validation([{ path: 'expires_at', message: `must be within ${MAX_LIFETIME_DAYS} days` }]);
  return at;
}

function actor(ctx: AppContext) {
  return ctx.state.auth!.principal!;
}

/** Personal access tokens (`api_token:manage`). */
export function apiTokenRoutes(pats: PatService): DomainRoutes {
  return {
    'POST /api-tokens': {
      docs: {
        summary: 'Issue a personal access token; the plaintext is in this response only.',
        responses: { 201: { description: 'The token, with its plaintext' } },
      },
      async handle(ctx) {
        const body = validate(createTokenSchema, ctx.state.body ?? {});
        const created = await pats.create(
          {
            name: body.name,
            username: body.username ?? actor(ctx).username,
            org: body.org ?? ctx.state.audit?.orgId,
            expiresAt: expiryOf(body),
          },
          actor(ctx),
          ctx.state.audit,
        );
        ctx.status = 201;
        ctx.body = created;
      },
    },
    'GET /api-tokens': {
      docs: {
        summary: 'List tokens (never their plaintext); filter by `username`, `org`, `include_revoked`.',
        responses: { 200: { description: 'Tokens' } },
      },
      async handle(ctx) {
        const query = validate(listQuerySchema, ctx.query);
        ctx.body = {
          items: await pats.list({ username: query.username, org: query.org, includeRevoked: query.include_revoked === 'true' }),
        };
      },
    },
    'DELETE /api-tokens/{token_id}': {
      docs: { summary: 'Revoke one token.', responses: { 204: { description: 'Revoked' } } },
      async handle(ctx) {
        await pats.revoke(ctx.state.params.token_id!, actor(ctx), ctx.state.audit);
        ctx.status = 204;
      },
    },
    'DELETE /api-tokens/by-user/{username}': {
      docs: { summary: 'Revoke every token of a user.', responses: { 200: { description: 'How many were revoked' } } },
      async handle(ctx) {
        ctx.body = { revoked: await pats.revokeAllOfUser(ctx.state.params.username!, actor(ctx), ctx.state.audit) };
      },
    },
  };
}
