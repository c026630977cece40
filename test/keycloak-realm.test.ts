import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The Keycloak realm shipped in deploy/keycloak/svc-realm.json must give svcd what the access-control
 * spec asks of the identity provider: the five platform roles, the four clients, tokens that carry
 * aud service-api and a `groups` claim of full paths, and the realm's security settings.
 */

interface ProtocolMapper {
  name: string;
  protocol: string;
  protocolMapper: string;
  config: Record<string, string>;
}

interface Client {
  clientId: string;
  enabled?: boolean;
  protocol?: string;
  publicClient?: boolean;
  bearerOnly?: boolean;
  standardFlowEnabled?: boolean;
  implicitFlowEnabled?: boolean;
  directAccessGrantsEnabled?: boolean;
  serviceAccountsEnabled?: boolean;
  clientAuthenticatorType?: string;
  secret?: string;
  redirectUris?: string[];
  webOrigins?: string[];
  attributes?: Record<string, string>;
  protocolMappers?: ProtocolMapper[];
}

interface Group {
  name: string;
  path: string;
  realmRoles?: string[];
  subGroups?: Group[];
}

interface User {
  username: string;
  serviceAccountClientId?: string;
  realmRoles?: string[];
}

interface Realm {
  realm: string;
  enabled: boolean;
  sslRequired: string;
  registrationAllowed: boolean;
  bruteForceProtected: boolean;
  permanentLockout: boolean;
  failureFactor: number;
  maxFailureWaitSeconds: number;
  accessTokenLifespan: number;
  ssoSessionIdleTimeout: number;
  ssoSessionMaxLifespan: number;
  defaultSignatureAlgorithm?: string;
  roles: { realm: { name: string; description?: string }[] };
  groups: Group[];
  clients: Client[];
  clientScopes?: unknown[];
  users?: User[];
}

const realm = JSON.parse(readFileSync(new URL('../deploy/keycloak/svc-realm.json', import.meta.url), 'utf8')) as Realm;

const PLATFORM_ROLES = ['admin', 'operator', 'approver', 'auditor', 'viewer'];
const TOKEN_CLIENTS = ['service-ui', 'svc-cli', 'service-automation'];

function client(clientId: string): Client {
  const found = realm.clients.find((c) => c.clientId === clientId);
  if (!found) throw new Error(`client ${clientId} is missing`);
  return found;
}

function mappersOf(clientId: string, type: string): ProtocolMapper[] {
  return (client(clientId).protocolMappers ?? []).filter((m) => m.protocolMapper === type);
}

function allGroups(groups: Group[]): Group[] {
  return groups.flatMap((g) => [g, ...allGroups(g.subGroups ?? [])]);
}

describe('Keycloak realm file', () => {
  it('is the svc realm, enabled', () => {
    expect(realm.realm).toBe('svc');
    expect(realm.enabled).toBe(true);
  });

  it('has the realm settings the spec requires', () => {
    expect(realm).toMatchObject({
      bruteForceProtected: true,
      failureFactor: 5,
      maxFailureWaitSeconds: 900,
      permanentLockout: false,
      sslRequired: 'external',
      registrationAllowed: false,
      accessTokenLifespan: 300,
      ssoSessionIdleTimeout: 1800,
      ssoSessionMaxLifespan: 36000,
    });
    // svcd accepts RS256 only.
    expect(realm.defaultSignatureAlgorithm ?? 'RS256').toBe('RS256');
  });

  it('has the five platform realm roles, each described', () => {
    const names = realm.roles.realm.map((r) => r.name);
    for (const role of PLATFORM_ROLES) {
      expect(names).toContain(role);
      const description = realm.roles.realm.find((r) => r.name === role)?.description ?? '';
      expect(description.length).toBeGreaterThan(0);
    }
  });

  it('grants every platform role through a top-level group whose path is /<name>', () => {
    const groups = allGroups(realm.groups);
    for (const group of groups) {
      expect(group.path.endsWith(`/${group.name}`)).toBe(true);
      for (const role of group.realmRoles ?? []) expect(PLATFORM_ROLES).toContain(role);
    }
    const roleOf = (path: string) => groups.find((g) => g.path === path)?.realmRoles;
    expect(roleOf('/platform-admins')).toEqual(['admin']);
    expect(roleOf('/network-ops')).toEqual(['operator']);
    expect(roleOf('/approvers')).toEqual(['approver']);
    expect(roleOf('/auditors')).toEqual(['auditor']);
    expect(roleOf('/viewers')).toEqual(['viewer']);
  });

  it('declares no client scopes, so Keycloak still creates its built-in ones (roles, basic, ...)', () => {
    // A clientScopes array in an import suppresses the built-in scopes, and with them realm_access.roles
    // and (Keycloak 25+) sub. The mappers are therefore on the clients.
    expect(realm.clientScopes).toBeUndefined();
  });

  it('has service-ui: public, standard flow only, PKCE S256', () => {
    const ui = client('service-ui');
    expect(ui).toMatchObject({
      enabled: true,
      protocol: 'openid-connect',
      publicClient: true,
      standardFlowEnabled: true,
      implicitFlowEnabled: false,
      directAccessGrantsEnabled: false,
      serviceAccountsEnabled: false,
    });
    expect(ui.attributes?.['pkce.code.challenge.method']).toBe('S256');
    expect(ui.attributes?.['oauth2.device.authorization.grant.enabled']).not.toBe('true');
    expect(ui.redirectUris?.length).toBeGreaterThan(0);
    expect(ui.webOrigins?.length).toBeGreaterThan(0);
  });

  it('has service-api: bearer-only, no flows', () => {
    expect(client('service-api')).toMatchObject({
      enabled: true,
      bearerOnly: true,
      publicClient: false,
      standardFlowEnabled: false,
      implicitFlowEnabled: false,
      directAccessGrantsEnabled: false,
      serviceAccountsEnabled: false,
    });
    expect(client('service-api').attributes?.['oauth2.device.authorization.grant.enabled']).not.toBe('true');
  });

  it('has service-automation: confidential, client credentials only, no secret in the file', () => {
    const automation = client('service-automation');
    expect(automation).toMatchObject({
      enabled: true,
      publicClient: false,
      bearerOnly: false,
      clientAuthenticatorType: 'client-secret',
      serviceAccountsEnabled: true,
      standardFlowEnabled: false,
      implicitFlowEnabled: false,
      directAccessGrantsEnabled: false,
    });
    expect(automation.attributes?.['oauth2.device.authorization.grant.enabled']).not.toBe('true');
    // Keycloak generates the secret at import; none is committed.
    expect(automation.secret).toBeUndefined();
    const serviceAccount = realm.users?.find((u) => u.serviceAccountClientId === 'service-automation');
    expect(serviceAccount?.username).toBe('service-account-service-automation');
  });

  it('has svc-cli: public, device authorization grant, standard flow with PKCE S256 to a loopback redirect', () => {
    const cli = client('svc-cli');
    expect(cli).toMatchObject({
      enabled: true,
      publicClient: true,
      standardFlowEnabled: true,
      implicitFlowEnabled: false,
      directAccessGrantsEnabled: false,
      serviceAccountsEnabled: false,
    });
    expect(cli.attributes?.['oauth2.device.authorization.grant.enabled']).toBe('true');
    expect(cli.attributes?.['pkce.code.challenge.method']).toBe('S256');
    // Keycloak matches a registered http://127.0.0.1/<path> against any port; a port wildcard is not its syntax.
    expect(cli.redirectUris).toEqual(['http://127.0.0.1/callback']);
  });

  it.each(TOKEN_CLIENTS)('puts service-api in the access token audience of %s', (clientId) => {
    const audience = mappersOf(clientId, 'oidc-audience-mapper');
    expect(audience).toHaveLength(1);
    expect(audience[0]).toMatchObject({
      protocol: 'openid-connect',
      config: { 'included.client.audience': 'service-api', 'access.token.claim': 'true' },
    });
  });

  it.each(TOKEN_CLIENTS)('puts the full-path groups claim in the tokens and userinfo of %s', (clientId) => {
    const groups = mappersOf(clientId, 'oidc-group-membership-mapper');
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({
      protocol: 'openid-connect',
      config: {
        'claim.name': 'groups',
        'full.path': 'true',
        'id.token.claim': 'true',
        'access.token.claim': 'true',
        'userinfo.token.claim': 'true',
      },
    });
  });

  it('has exactly the four svc clients', () => {
    expect(realm.clients.map((c) => c.clientId).sort()).toEqual(['service-api', 'service-automation', 'service-ui', 'svc-cli']);
  });
});
