import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { DEFAULT_TOKEN_SCOPE, keycloakClaims, mirroredClientRoles } from './claims.js';
import { DEV_CLIENTS, DEV_SERVICE_ACCOUNT, devClientMetadata } from './clients.js';
import type { SigningKey } from './keys.js';
import type { MemoryStore } from './memory-store.js';
import { deviceConfirmPage, deviceInputPage, messagePage } from './pages.js';
import { findDevUserBySub } from './users.js';

/** Everything a Provider is built from; key rotation builds a new Provider from the same settings. */
export interface ProviderSettings {
  readonly issuer: string;
  readonly audience: string;
  readonly automationRoles: readonly string[];
  /** The signing key first; older keys stay so that their tokens still verify against the JWKS. */
  readonly keys: readonly SigningKey[];
  readonly cookieKeys: readonly string[];
  readonly store: MemoryStore;
}

export const ACCESS_TOKEN_TTL_SECONDS = 300;

/** The resource indicator that stands for the API; clients need not send it (see defaultResource). */
export function resourceIndicatorFor(audience: string): string {
  return `urn:svc:${audience}`;
}

function html(ctx: KoaContextWithOIDC, body: string): void {
  ctx.type = 'html';
  ctx.body = body;
}

function tokenClaims(settings: ProviderSettings): NonNullable<Configuration['extraTokenClaims']> {
  const { audience, automationRoles } = settings;
  return (_ctx, token) => {
    if (token.kind === 'ClientCredentials') {
      const roles = [...automationRoles];
      return keycloakClaims({
        username: DEV_SERVICE_ACCOUNT.username,
        realmRoles: roles,
        clientRoles: mirroredClientRoles(audience, roles),
        groups: DEV_SERVICE_ACCOUNT.groups,
      });
    }
    const user = findDevUserBySub(token.accountId);
    return user && keycloakClaims({ ...user, clientRoles: mirroredClientRoles(audience, user.realmRoles) });
  };
}

/** oidc-provider fixes sub, aud and scope after extraTokenClaims; these are the Keycloak touches on top. */
function keycloakShape(): NonNullable<NonNullable<NonNullable<Configuration['formats']>['customizers']>['jwt']> {
  return (_ctx, token, jwt) => {
    const { payload } = jwt;
    payload.aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    payload.azp = token.clientId;
    if (token.kind === 'ClientCredentials') payload.sub = DEV_SERVICE_ACCOUNT.sub;
    payload.scope ??= DEFAULT_TOKEN_SCOPE;
    return jwt;
  };
}

export function providerConfiguration(settings: ProviderSettings): Configuration {
  const resource = resourceIndicatorFor(settings.audience);
  const [signingKey] = settings.keys;
  return {
    adapter: settings.store.factory,
    clients: devClientMetadata(),
    responseTypes: ['code'],
    jwks: { keys: settings.keys.map((key) => key.privateJwk) },
    cookies: { keys: [...settings.cookieKeys], long: { signed: true, sameSite: 'lax' }, short: { signed: true } },
    claims: { openid: ['sub', 'groups'], profile: ['preferred_username'], email: ['email', 'email_verified'] },
    async findAccount(_ctx, sub) {
      const user = findDevUserBySub(sub);
      if (user === undefined) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, preferred_username: user.username, email: user.email, email_verified: true, groups: [...user.groups] }),
      };
    },
    extraTokenClaims: tokenClaims(settings),
    formats: { customizers: { jwt: keycloakShape() } },
    // Keycloak hands public clients a refresh token without offline_access; only svc-cli has the grant.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    pkce: { methods: ['S256'], required: () => true },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      ClientCredentials: ACCESS_TOKEN_TTL_SECONDS,
      IdToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      DeviceCode: 600,
      Interaction: 600,
      // The reference realm's session idle (refresh token) and session maximum.
      RefreshToken: 30 * 60,
      Session: 10 * 60 * 60,
      Grant: 10 * 60 * 60,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      deviceFlow: {
        enabled: true,
        userCodeInputSource: (ctx, form, _out, err) => html(ctx, deviceInputPage(form, err !== undefined)),
        userCodeConfirmSource: (ctx, form, client, _info, userCode) => html(ctx, deviceConfirmPage(form, client.clientId, userCode)),
        successSource: (ctx) => html(ctx, messagePage('Signed in', { client: ctx.oidc.client?.clientId ?? '' })),
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget();
          return {
            scope: 'openid profile email',
            audience: settings.audience,
            accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256', kid: signingKey?.kid } },
          };
        },
      },
    },
    renderError: (ctx, out) => html(ctx, messagePage('Sign-in failed', { error: out.error, error_description: out.error_description })),
    clientBasedCORS: (_ctx, _origin, client) => client.clientId === DEV_CLIENTS.ui,
  };
}

export function buildProvider(settings: ProviderSettings): Provider {
  return new Provider(settings.issuer, providerConfiguration(settings));
}
