import { randomUUID } from 'node:crypto';
import { CompactSign, type CompactJWSHeaderParameters } from 'jose';
import { keycloakClaims, mirroredClientRoles } from './claims.js';
import { DEV_CLIENTS } from './clients.js';
import type { SigningKey } from './keys.js';
import { ACCESS_TOKEN_TTL_SECONDS } from './provider-config.js';
import type { MintOptions } from './types.js';
import { DEV_USERS, type DevUser } from './users.js';

/**
 * Signs the JSON of the payload as given, with no claim checks, so that tests can craft tokens a
 * validator must refuse (string exp, missing sub, and so on).
 */
export async function signWith(key: SigningKey, payload: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const protectedHeader = { alg: 'RS256', typ: 'JWT', kid: key.kid, ...header } as CompactJWSHeaderParameters;
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader(protectedHeader).sign(key.privateKey);
}

/** A payload shaped like a Keycloak access token for the API. */
export function mintPayload(issuer: string, audience: string, options: MintOptions = {}): Record<string, unknown> {
  const admin = DEV_USERS[0] as DevUser;
  const now = Math.floor(Date.now() / 1000);
  const realmRoles = options.realmRoles ?? [...admin.realmRoles];
  const payload: Record<string, unknown> = {
    iss: options.issuer ?? issuer,
    sub: options.sub ?? admin.sub,
    aud: options.audience ?? [audience],
    exp: now + (options.expiresInSeconds ?? ACCESS_TOKEN_TTL_SECONDS),
    iat: options.iat ?? now,
    ...(options.nbf !== undefined ? { nbf: options.nbf } : {}),
    jti: randomUUID(),
    azp: DEV_CLIENTS.ui,
    scope: 'openid profile email',
    ...keycloakClaims({
      username: options.username ?? admin.username,
      email: options.email ?? admin.email,
      realmRoles,
      clientRoles: options.clientRoles ?? mirroredClientRoles(audience, realmRoles),
      groups: options.groups ?? [...admin.groups],
    }),
    ...options.extra,
  };
  for (const claim of options.omit ?? []) delete payload[claim];
  return payload;
}
