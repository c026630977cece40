import type { JWTPayload } from 'jose';
import type { Principal } from '../../../shared/auth/principal.js';

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The Principal of Keycloak-shaped claims. Client roles are those of the API client (the audience);
 * a Keycloak service account is recognised by its `service-account-` username.
 */
export function principalFromClaims(payload: JWTPayload, apiClientId: string): Principal {
  const username = typeof payload.preferred_username === 'string' ? payload.preferred_username : String(payload.sub);
  return {
    sub: String(payload.sub),
    username,
    email: typeof payload.email === 'string' ? payload.email : '',
    realmRoles: strings(record(payload.realm_access).roles),
    clientRoles: strings(record(record(payload.resource_access)[apiClientId]).roles),
    groups: strings(payload.groups),
    isServiceAccount: username.startsWith('service-account-'),
  };
}
