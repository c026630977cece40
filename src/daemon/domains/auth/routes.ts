import { authConfig, authMe, capabilities, redeemedTicket, streamTicket, ticketQuery } from '../../../shared/api/auth.js';
import { principalToWire } from '../../../shared/auth/principal.js';
import { CATALOGUE } from '../../../shared/catalogue/catalogue.js';
import { SVC_VERSION } from '../../../shared/version.js';
import type { TicketsService } from '../../auth/tickets/tickets-service.js';
import type { Explainer } from '../../authz/explain.js';
import type { Config } from '../../config/config.js';
import { route } from '../../http/route.js';
import { authProblems } from '../../auth/auth-problems.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import type { UsersRepo } from '../../tenancy/users-repo.js';

export interface AuthRoutesDeps {
  readonly config: Config;
  readonly tickets: TicketsService;
  readonly users: UsersRepo;
  readonly explainer: Explainer;
}

function principalOf(ctx: AppContext) {
  const principal = ctx.state.auth?.principal;
  if (!principal) throw authProblems.unauthenticated('Bearer realm="svc"');
  return principal;
}

/** Login configuration, the caller's identity and capabilities, and stream tickets. */
export function authRoutes({ config, tickets, users, explainer }: AuthRoutesDeps): DomainRoutes {
  return {
    'GET /auth/config': route({
      summary: 'What a browser app or the CLI needs to sign in.',
      responses: { 200: { description: 'Sign-in configuration', schema: authConfig } },
      handle(ctx) {
        const issuer = config.idpPublicIssuer ?? config.idpIssuer ?? null;
        ctx.body = {
          // What tells the CLI it talks to svc before it sends or stores a credential.
          service: 'svc',
          version: SVC_VERSION,
          auth_enabled: !config.authDisabled,
          issuer,
          discovery_url: issuer ? `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration` : null,
          client_id: config.idpUiClientId,
          cli_client_id: config.idpCliClientId,
          audience: config.idpAudience,
          scopes: ['openid', 'profile', 'email'],
        };
      },
    }),
    'GET /auth/me': route({
      summary: 'The caller: identity, realm and client roles, groups, memberships, authentication method.',
      responses: { 200: { description: 'The caller', schema: authMe } },
      async handle(ctx) {
        const principal = principalOf(ctx);
        const auth = ctx.state.auth!;
        const user = await users.findBySub(principal.sub);
        const memberships = user ? await users.membershipsOf(user.id) : [];
        ctx.body = {
          ...principalToWire(principal),
          auth_method: auth.method,
          user_id: user?.id ?? null,
          memberships: auth.pat ? memberships.filter((m) => m.org_id === auth.pat!.orgId) : memberships,
          ...(auth.pat ? { token: { id: auth.pat.tokenId, org_id: auth.pat.orgId } } : {}),
        };
      },
    }),
    'GET /auth/capabilities': route({
      summary: 'What the caller may do, per action, under the effective policies.',
      responses: { 200: { description: 'Capabilities per action', schema: capabilities } },
      async handle(ctx) {
        const principal = principalOf(ctx);
        const header = ctx.get('x-org-id') || undefined;
        const tokenOrgId = ctx.state.auth!.pat?.orgId;
        // Every route is explained in the organization the caller would send (X-Org-Id, else the default).
        const explained = await explainer.explainMany(CATALOGUE.routes, { principal, orgRef: header, tokenOrgId });
        const byKey = new Map(explained.map((e) => [`${e.route.method} ${e.route.path}`, e]));
        const actions = [];
        for (const action of CATALOGUE.actions) {
          const routes = action.routes.map((key) => byKey.get(key)!);
          const allowed = routes.filter((r) => r.allowed).length;
          actions.push({
            action: action.action,
            policy: routes[0]!.policy,
            allowed: allowed === routes.length,
            routes_allowed: allowed,
            routes_total: routes.length,
            reason: (routes.find((r) => !r.allowed) ?? routes[0]!).reason,
          });
        }
        ctx.body = { organization: header ?? null, actions };
      },
    }),
    'POST /auth/bff/ticket': route({
      summary: 'Exchange the bearer token for a single-use stream ticket (five minutes).',
      noBody: true,
      responses: { 201: { description: 'The ticket', schema: streamTicket } },
      async handle(ctx) {
        if (config.authDisabled) throw authProblems.ticketsUnavailable();
        const principal = principalOf(ctx);
        const { method, pat } = ctx.state.auth!;
        const issued = await tickets.issue(principal, {
          authMethod: method,
          orgId: pat?.orgId,
          patId: pat?.tokenId,
          patUserId: pat?.userId,
        });
        ctx.status = 201;
        ctx.body = {
          ticket: issued.ticket,
          expires_at: new Date(issued.expiresAt).toISOString(),
          expires_in: Math.max(0, Math.round((new Date(issued.expiresAt).getTime() - Date.now()) / 1000)),
        };
      },
    }),
    'GET /auth/bff/validate': route({
      summary: 'Validate and consume a stream ticket (`?ticket=`).',
      query: ticketQuery,
      responses: { 200: { description: 'The principal the ticket stood for', schema: redeemedTicket } },
      async handle(ctx, { query }) {
        const redeemed = await tickets.redeem(query.ticket);
        ctx.body = {
          valid: true,
          principal: principalToWire(redeemed.principal),
          auth_method: redeemed.authMethod,
          org_id: redeemed.orgId,
        };
      },
    }),
  };
}
