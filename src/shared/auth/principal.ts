/** The authenticated caller as the service sees it (access-control spec, "Principal"). */
export interface Principal {
  readonly sub: string;
  readonly username: string;
  readonly email: string;
  readonly realmRoles: readonly string[];
  readonly clientRoles: readonly string[];
  readonly groups: readonly string[];
  readonly isServiceAccount: boolean;
}

/** The mock principal every request gets when authentication is disabled (development only). */
export const DEV_PRINCIPAL: Principal = Object.freeze({
  sub: 'dev-user',
  username: 'dev',
  email: 'dev@localhost.invalid',
  realmRoles: Object.freeze(['admin', 'operator', 'auditor']),
  clientRoles: Object.freeze(['admin']),
  groups: Object.freeze([]),
  isServiceAccount: false,
});

/** The JSON shape of a principal on the wire (`/auth/me`, ticket validation). */
export function principalToWire(principal: Principal): Record<string, unknown> {
  return {
    sub: principal.sub,
    username: principal.username,
    email: principal.email,
    realm_roles: principal.realmRoles,
    client_roles: principal.clientRoles,
    groups: principal.groups,
    is_service_account: principal.isServiceAccount,
  };
}

export function principalFromWire(wire: Record<string, unknown>): Principal {
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  return {
    sub: String(wire.sub),
    username: String(wire.username ?? ''),
    email: String(wire.email ?? ''),
    realmRoles: strings(wire.realm_roles),
    clientRoles: strings(wire.client_roles),
    groups: strings(wire.groups),
    isServiceAccount: wire.is_service_account === true,
  };
}
