/** Who a token speaks for, in the terms Keycloak's mappers put into an access token. */
export interface TokenIdentity {
  readonly username: string;
  readonly email?: string | undefined;
  readonly realmRoles: readonly string[];
  readonly clientRoles: Readonly<Record<string, readonly string[]>>;
  readonly groups: readonly string[];
}

/** Keycloak's default client scopes, which it grants without being asked (a service account's token carries these). */
export const DEFAULT_TOKEN_SCOPE = 'profile email';

/** The claims Keycloak adds beside the registered ones: username, e-mail, realm and client roles, groups. */
export function keycloakClaims(identity: TokenIdentity): Record<string, unknown> {
  return {
    preferred_username: identity.username,
    ...(identity.email !== undefined ? { email: identity.email, email_verified: true } : {}),
    realm_access: { roles: [...identity.realmRoles] },
    resource_access: Object.fromEntries(Object.entries(identity.clientRoles).map(([client, roles]) => [client, { roles: [...roles] }])),
    groups: [...identity.groups],
  };
}

/**
 * Dev accounts carry no separate client roles: their roles on the API client mirror their realm
 * roles, which is how the reference realm maps them.
 */
export function mirroredClientRoles(audience: string, realmRoles: readonly string[]): Record<string, readonly string[]> {
  return { [audience]: realmRoles };
}
