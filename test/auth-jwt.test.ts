import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_AUTOMATION_CLIENT_SECRET, startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

const PUBLIC_ISSUER = 'https://sso.example.test/realms/svc';
let idp: DevIdp;
let daemon: TestDaemon;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({
    SERVICE_IDP_ISSUER: idp.issuer,
    SERVICE_IDP_PUBLIC_ISSUER: PUBLIC_ISSUER,
    SERVICE_IDP_JWKS_MIN_REFRESH_SECONDS: '0',
  });
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

const now = () => Math.floor(Date.now() / 1000);
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

async function me(token: string): Promise<{ status: number; body: Record<string, unknown>; challenge: string | null }> {
  const response = await fetch(`${daemon.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    challenge: response.headers.get('www-authenticate'),
  };
}

describe('JWT access tokens', () => {
  it('accept a valid token and build the principal from its claims', async () => {
    const token = await idp.mintAccessToken({
      sub: 'u-1',
      username: 'ops',
      email: 'ops@example.test',
      realmRoles: ['operator'],
      clientRoles: { 'service-api': ['deployer'], other: ['x'] },
      groups: ['/network-ops', '/network-ops/emea'],
    });
    const { status, body } = await me(token);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      sub: 'u-1',
      username: 'ops',
      email: 'ops@example.test',
      realm_roles: ['operator'],
      client_roles: ['deployer'],
      groups: ['/network-ops', '/network-ops/emea'],
      is_service_account: false,
      auth_method: 'jwt',
    });
  });

  it('accept a token from the public issuer too', async () => {
    expect((await me(await idp.mintAccessToken({ issuer: PUBLIC_ISSUER }))).status).toBe(200);
  });

  // 28 s rather than 29: `exp` is whole seconds, so at 29 a mint and a check that straddle one second
  // boundary (a loaded CI host) already stand 30 s apart. 31 s is refused below; 30 is the tolerance.
  it('accept a token expired 28 s ago (clock skew)', async () => {
    expect((await me(await idp.mintAccessToken({ expiresInSeconds: -28, iat: now() - 300 }))).status).toBe(200);
  });

  it('accept a client-credentials token issued by the provider itself', async () => {
    const discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as { token_endpoint: string };
    const response = await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`service-automation:${DEV_AUTOMATION_CLIENT_SECRET}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).toBe(200);
    const { access_token } = (await response.json()) as { access_token: string };
    const { status, body } = await me(access_token);
    expect(status).toBe(200);
    expect(body).toMatchObject({ username: 'service-account-service-automation', is_service_account: true, realm_roles: ['operator'] });
  });

  it('recognise a service account', async () => {
    const { body } = await me(await idp.mintAccessToken({ sub: 'sa-1', username: 'service-account-service-automation' }));
    expect(body.is_service_account).toBe(true);
  });

  it('create the user profile on the first request', async () => {
    await me(await idp.mintAccessToken({ sub: 'u-profile', username: 'profiled', email: 'p@example.test' }));
    const user = await daemon.services.db.knex('users').where({ sub: 'u-profile' }).first();
    expect(user).toMatchObject({ username: 'profiled', email: 'p@example.test', is_active: true });
    expect(user.last_login_at).not.toBeNull();
  });

  const refused: [string, () => Promise<string>][] = [
    [
      'alg none',
      async () =>
        `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'x', iss: idp.issuer, aud: 'service-api', exp: now() + 60, iat: now() })}.`,
    ],
    [
      'HS256 signed with the public key',
      async () => {
        const jwks = (await (await fetch(idp.jwksUri)).json()) as { keys: { kid: string; n: string }[] };
        const key = jwks.keys[0]!;
        return new SignJWT({ sub: 'x' })
          .setProtectedHeader({ alg: 'HS256', kid: key.kid })
          .setIssuer(idp.issuer)
          .setAudience('service-api')
          .setIssuedAt()
          .setExpirationTime('1m')
          .sign(new TextEncoder().encode(JSON.stringify(key)));
      },
    ],
    ['wrong issuer', () => idp.mintAccessToken({ issuer: 'https://evil.example.test/realms/svc' })],
    ['issuer with a trailing slash', () => idp.mintAccessToken({ issuer: `${idp.issuer}/` })],
    ['wrong audience', () => idp.mintAccessToken({ audience: ['account'] })],
    ['expired 31 s ago', () => idp.mintAccessToken({ expiresInSeconds: -31, iat: now() - 300 })],
    // 32, not 31: with whole-second nbf, minting and checking may straddle a second boundary.
    ['nbf 32 s ahead', () => idp.mintAccessToken({ nbf: now() + 32 })],
    ['iat an hour ahead', () => idp.mintAccessToken({ iat: now() + 3600, expiresInSeconds: 7200 })],
    ['missing exp', () => idp.mintAccessToken({ omit: ['exp'] })],
    ['missing iat', () => idp.mintAccessToken({ omit: ['iat'] })],
    ['missing sub', () => idp.mintAccessToken({ omit: ['sub'] })],
    ['empty sub', () => idp.mintAccessToken({ sub: '' })],
    ['two segments', async () => (await idp.mintAccessToken()).split('.').slice(0, 2).join('.')],
    ['four segments', async () => `${await idp.mintAccessToken()}.abc`],
    ['bad base64', async () => (await idp.mintAccessToken()).replace(/^[^.]+/, '!!!not*base64!!!')],
    [
      'payload not an object',
      async () => {
        const [h, , s] = (await idp.mintAccessToken()).split('.');
        return `${h}.${b64('[1,2]')}.${s}`;
      },
    ],
    [
      'a key id the provider never published',
      () => idp.sign({ sub: 'x', iss: idp.issuer, aud: ['service-api'], exp: now() + 60, iat: now() }, { kid: 'never-published' }),
    ],
  ];

  it.each(refused)('refuse %s with 401 invalid_token or token_expired and a Bearer error challenge', async (_, make) => {
    const { status, body, challenge } = await me(await make());
    expect(status).toBe(401);
    expect(['invalid_token', 'token_expired']).toContain(body.code);
    expect(challenge).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('accept a token signed with a rotated key, without a restart', async () => {
    expect((await me(await idp.mintAccessToken())).status).toBe(200);
    await idp.rotateKeys();
    expect((await me(await idp.mintAccessToken({ sub: 'after-rotation' }))).status).toBe(200);
  });
});

describe('an identity provider that cannot be reached', () => {
  let hung: Server;
  beforeAll(async () => {
    // Accepts connections and never answers.
    hung = createServer(() => {});
    hung.listen(0, '127.0.0.1');
    await once(hung, 'listening');
  });
  afterAll(() => new Promise((resolve) => hung.close(resolve)));

  it('answers 503 with Retry-After when the provider is down', async () => {
    const down = await startDevIdp();
    const isolated = await startTestDaemon({ SERVICE_IDP_ISSUER: down.issuer });
    try {
      const token = await down.mintAccessToken();
      await down.stop();
      const response = await fetch(`${isolated.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('30');
      expect(((await response.json()) as { code: string }).code).toBe('auth_unavailable');
    } finally {
      await isolated.close();
    }
  });

  it('answers 503 within the fetch time limit when the provider hangs', async () => {
    const { port } = hung.address() as { port: number };
    const isolated = await startTestDaemon({
      SERVICE_IDP_ISSUER: `http://127.0.0.1:${port}/realms/svc`,
      SERVICE_IDP_HTTP_TIMEOUT_MS: '500',
    });
    try {
      const response = await fetch(`${isolated.url}/auth/me`, {
        headers: { authorization: `Bearer ${await idp.mintAccessToken()}` },
        signal: AbortSignal.timeout(10_000),
      });
      // The client gives up after 10 s; the daemon's 0.5 s limit answers long before.
      expect(response.status).toBe(503);
    } finally {
      await isolated.close();
    }
  });
});

describe('a discovery document naming another issuer (OpenID Connect Discovery 4.3)', () => {
  /** A provider at `issuer` whose discovery document says `claimed`; counts requests for its key set. */
  async function provider(claimed: (base: string) => string) {
    const { generateKeyPair, exportJWK } = await import('jose');
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    const seen = { jwks: 0 };
    const server = createServer((req, res) => {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/realms/svc`;
      res.setHeader('content-type', 'application/json');
      if (req.url === '/realms/svc/.well-known/openid-configuration')
        res.end(JSON.stringify({ issuer: claimed(base), jwks_uri: `${base}/certs` }));
      else if (req.url === '/realms/svc/certs') {
        seen.jwks += 1;
        res.end(JSON.stringify({ keys: [jwk] }));
      } else res.writeHead(404).end('{}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}/realms/svc`;
    const token = await new SignJWT({ preferred_username: 'mallory', realm_access: { roles: [] }, azp: 'svc-cli' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(issuer)
      .setAudience('service-api')
      .setSubject('sub-mallory')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    return { issuer, token, seen, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('refuses the key set: 503 auth_unavailable, and its jwks_uri is never fetched', async () => {
    const impostor = await provider(() => 'https://elsewhere.example.test/realms/svc');
    const isolated = await startTestDaemon({ SERVICE_IDP_ISSUER: impostor.issuer });
    try {
      const response = await fetch(`${isolated.url}/auth/me`, { headers: { authorization: `Bearer ${impostor.token}` } });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { code: string }).code).toBe('auth_unavailable');
      expect(impostor.seen.jwks).toBe(0);
    } finally {
      await isolated.close();
      await impostor.close();
    }
  });

  it('trusts a document naming the configured issuer (a trailing slash aside)', async () => {
    const honest = await provider((base) => `${base}/`);
    const isolated = await startTestDaemon({ SERVICE_IDP_ISSUER: honest.issuer });
    try {
      const response = await fetch(`${isolated.url}/auth/me`, { headers: { authorization: `Bearer ${honest.token}` } });
      expect(response.status).toBe(200);
      expect(honest.seen.jwks).toBe(1);
    } finally {
      await isolated.close();
      await honest.close();
    }
  });
});
