import type { z } from 'zod';
import {
  createdToken,
  createTokenBody,
  listTokensQuery,
  MAX_LIFETIME_DAYS,
  revokedTokens,
  tokenList,
  tokenPath,
  tokenUserPath,
} from '../../../shared/api/tokens.js';
import type { PatService } from '../../auth/pat/pat-service.js';
import { problems } from '../../../shared/api/problems.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';

/** The expiry the body asks for; an instant is checked here, against the clock, after the body's schema. */
function expiryOf(body: z.output<typeof createTokenBody>): Date | null {
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
    'POST /api-tokens': route({
      summary: 'Issue a personal access token; the plaintext is in this response only.',
      body: createTokenBody,
      responses: { 201: { description: 'The token, with its plaintext', schema: createdToken } },
      async handle(ctx, { body }) {
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
    }),
    'GET /api-tokens': route({
      summary: 'List tokens (never their plaintext); filter by `username`, `org`, `include_revoked`.',
      query: listTokensQuery,
      responses: { 200: { description: 'Tokens', schema: tokenList } },
      async handle(ctx, { query }) {
        ctx.body = {
          items: await pats.list({ username: query.username, org: query.org, includeRevoked: query.include_revoked === 'true' }),
        };
      },
    }),
    'DELETE /api-tokens/{token_id}': route({
      summary: 'Revoke one token.',
      params: tokenPath,
      responses: { 204: { description: 'Revoked' } },
      async handle(ctx, { params }) {
        await pats.revoke(params.token_id, actor(ctx), ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'DELETE /api-tokens/by-user/{username}': route({
      summary: 'Revoke every token of a user.',
      params: tokenUserPath,
      responses: { 200: { description: 'How many were revoked', schema: revokedTokens } },
      async handle(ctx, { params }) {
        ctx.body = { revoked: await pats.revokeAllOfUser(params.username, actor(ctx), ctx.state.audit) };
      },
    }),
  };
}
