import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approveDeviceCode,
  authorizeInBrowser,
  DEV_AUTOMATION_CLIENT_SECRET,
  DEV_CLIENTS,
  DEV_SERVICE_ACCOUNT,
  DEV_USERS,
  DevBrowser,
  LOGIN_FORM_ID,
  readForm,
  startDevIdp,
  type DevIdp,
  type DevUser,
} from '../src/daemon/dev-idp/index.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const user = (name: string): DevUser => DEV_USERS.find((u) => u.username === name) as DevUser;
const operator = user('operator');

let idp: DevIdp;

beforeAll(async () => {
  idp = await startDevIdp({ automationRoles: ['operator', 'approver'] });
});
afterAll(() => idp?.stop());

async function token(
  target: DevIdp,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${target.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

const basic = (id: string, secret: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
});

async function verify(target: DevIdp, jwt: string): Promise<JWTPayload> {
  const { payload } = await jwtVerify(jwt, createRemoteJWKSet(new URL(target.jwksUri)), {
    issuer: target.issuer,
    audience: 'service-api',
    algorithms: ['RS256'],
  });
  return payload;
}

async function startDeviceAuthorization(): Promise<Record<string, string>> {
  const response = await fetch(`${idp.issuer}/device/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: DEV_CLIENTS.cli, scope: 'openid profile email offline_access' }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, string>;
}

const pollDevice = (deviceCode: string) => token(idp, { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: DEV_CLIENTS.cli });

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe('embedded OpenID provider', () => {
  it('serves discovery and a JWKS of public RS256 keys', async () => {
    const discovery = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    const metadata = (await discovery.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ issuer: idp.issuer, jwks_uri: idp.jwksUri });
    expect(metadata.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'client_credentials', 'refresh_token', DEVICE_GRANT]),
    );
    expect(idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const jwks = await fetch(idp.jwksUri);
    expect(jwks.status).toBe(200);
    const { keys } = (await jwks.json()) as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    expect(keys[0]).not.toHaveProperty('d');
  });

  it('issues service-automation a Keycloak-shaped client-credentials token, by basic or post authentication', async () => {
    const viaBasic = await token(idp, { grant_type: 'client_credentials' }, basic(DEV_CLIENTS.automation, DEV_AUTOMATION_CLIENT_SECRET));
    expect(viaBasic.status).toBe(200);
    expect(decodeProtectedHeader(viaBasic.body.access_token ?? '').alg).toBe('RS256');
    const claims = await verify(idp, viaBasic.body.access_token ?? '');
    expect(claims).toMatchObject({
      sub: DEV_SERVICE_ACCOUNT.sub,
      preferred_username: 'service-account-service-automation',
      azp: DEV_CLIENTS.automation,
      realm_access: { roles: ['operator', 'approver'] },
      resource_access: { 'service-api': { roles: ['operator', 'approver'] } },
      groups: ['/automation'],
    });
    expect(claims.aud).toEqual(['service-api']);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(300);

    const viaPost = await token(idp, {
      grant_type: 'client_credentials',
      client_id: DEV_CLIENTS.automation,
      client_secret: DEV_AUTOMATION_CLIENT_SECRET,
    });
    expect(viaPost.status).toBe(200);
    const wrong = await token(idp, { grant_type: 'client_credentials' }, basic(DEV_CLIENTS.automation, 'not-the-secret'));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
  });

  it('mints tokens that verify against the published JWKS, and crafts tokens on request', async () => {
    const admin = user('admin');
    const minted = await verify(idp, await idp.mintAccessToken());
    expect(minted).toMatchObject({
      sub: admin.sub,
      preferred_username: 'admin',
      email: admin.email,
      realm_access: { roles: ['admin'] },
      resource_access: { 'service-api': { roles: ['admin'] } },
      groups: ['/platform-admins'],
      aud: ['service-api'],
    });

    const custom = decodeJwt(
      await idp.mintAccessToken({ realmRoles: ['viewer'], groups: ['Viewers'], audience: 'other', extra: { foo: 1 }, omit: ['exp'] }),
    );
    expect(custom).toMatchObject({ realm_access: { roles: ['viewer'] }, groups: ['Viewers'], aud: 'other', foo: 1 });
    expect(custom).not.toHaveProperty('exp');

    const unknownKid = await idp.sign({ sub: 'x', iss: idp.issuer, aud: 'service-api' }, { kid: 'no-such-key' });
    expect(decodeProtectedHeader(unknownKid).kid).toBe('no-such-key');
    await expect(verify(idp, unknownKid)).rejects.toThrow();
  });

  it('rotates keys on the same port: new tokens carry the new kid, the old key stays published', async () => {
    const own = await startDevIdp();
    try {
      const before = await own.mintAccessToken();
      const oldKid = decodeProtectedHeader(before).kid;
      await own.rotateKeys();
      const after = await own.mintAccessToken();
      const newKid = decodeProtectedHeader(after).kid;
      expect(newKid).not.toBe(oldKid);
      await verify(own, after);
      await verify(own, before);
      const issued = await token(own, { grant_type: 'client_credentials' }, basic(DEV_CLIENTS.automation, DEV_AUTOMATION_CLIENT_SECRET));
      expect(decodeProtectedHeader(issued.body.access_token ?? '').kid).toBe(newKid);
      const { keys } = (await (await fetch(own.jwksUri)).json()) as { keys: { kid: string }[] };
      expect(keys.map((key) => key.kid)).toEqual([newKid, oldKid]);
    } finally {
      await own.stop();
    }
  });

  it('refuses connections after stop() and serves the same issuer and keys after start()', async () => {
    const own = await startDevIdp();
    try {
      const minted = await own.mintAccessToken();
      await own.stop();
      await expect(fetch(own.jwksUri)).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
      await own.start();
      const discovery = await fetch(`${own.issuer}/.well-known/openid-configuration`);
      expect(discovery.status).toBe(200);
      expect(((await discovery.json()) as { issuer: string }).issuer).toBe(own.issuer);
      await verify(own, minted);
    } finally {
      await own.stop();
    }
  });

  it('completes a device-grant login driven over HTTP, step by step', async () => {
    const device = await startDeviceAuthorization();
    expect((await pollDevice(device.device_code ?? '')).body.error).toBe('authorization_pending');

    const browser = new DevBrowser();
    const input = await browser.get(device.verification_uri ?? '');
    expect(input.status).toBe(200);
    const confirm = await browser.submit(input, 'op.deviceInputForm', { user_code: device.user_code ?? '' });
    expect(confirm.status).toBe(200);
    const confirmed = await browser.submit(confirm, 'op.deviceConfirmForm');
    expect(confirmed.status).toBe(303);
    const login = await browser.follow(confirmed);
    expect(login.status).toBe(200);
    expect(readForm(login, LOGIN_FORM_ID)).toBeDefined();
    const signedIn = await browser.submit(login, LOGIN_FORM_ID, { username: operator.username, password: operator.password });
    expect(signedIn.status).toBe(303);
    const done = await browser.follow(signedIn);
    expect(done.status).toBe(200);

    const granted = await pollDevice(device.device_code ?? '');
    expect(granted.status).toBe(200);
    expect(granted.body.refresh_token).toEqual(expect.any(String));
    const claims = await verify(idp, granted.body.access_token ?? '');
    expect(claims).toMatchObject({
      sub: operator.sub,
      preferred_username: 'operator',
      email: operator.email,
      azp: DEV_CLIENTS.cli,
      realm_access: { roles: ['operator'] },
      groups: ['/network-ops', '/network-ops/emea'],
    });
  });

  it('gives no token when the password is wrong; the refused form can be retried', async () => {
    const device = await startDeviceAuthorization();
    const browser = new DevBrowser();
    const input = await browser.get(device.verification_uri ?? '');
    const confirm = await browser.submit(input, 'op.deviceInputForm', { user_code: device.user_code ?? '' });
    const login = await browser.follow(await browser.submit(confirm, 'op.deviceConfirmForm'));
    const refused = await browser.submit(login, LOGIN_FORM_ID, { username: operator.username, password: 'wrong' });
    expect(refused.status).toBe(200);
    expect(refused.location).toBeUndefined();
    expect(readForm(refused, LOGIN_FORM_ID)).toBeDefined();
    const pending = await pollDevice(device.device_code ?? '');
    expect(pending.status).toBe(400);
    expect(pending.body.error).toBe('authorization_pending');

    const retried = await browser.submit(refused, LOGIN_FORM_ID, { username: operator.username, password: operator.password });
    expect(retried.status).toBe(303);
    expect((await browser.follow(retried)).status).toBe(200);
    expect((await pollDevice(device.device_code ?? '')).status).toBe(200);
  });

  it('drives the device flow with approveDeviceCode', async () => {
    const refused = await startDeviceAuthorization();
    expect(await approveDeviceCode(refused.verification_uri ?? '', refused.user_code ?? '', { username: 'viewer', password: 'nope' })).toBe(
      false,
    );
    expect((await pollDevice(refused.device_code ?? '')).body.error).toBe('authorization_pending');

    const accepted = await startDeviceAuthorization();
    expect(
      await approveDeviceCode(accepted.verification_uri ?? '', accepted.user_code ?? '', {
        username: 'viewer',
        password: 'viewer-password',
      }),
    ).toBe(true);
    const granted = await pollDevice(accepted.device_code ?? '');
    expect(await verify(idp, granted.body.access_token ?? '')).toMatchObject({ preferred_username: 'viewer', groups: ['/viewers'] });
  });

  it.each([
    { client: DEV_CLIENTS.cli, redirectUri: 'http://127.0.0.1:49321/callback', refresh: true },
    { client: DEV_CLIENTS.ui, redirectUri: 'http://localhost/callback', refresh: false },
  ])('runs the authorization code flow with PKCE for $client', async ({ client, redirectUri, refresh }) => {
    const { verifier, challenge } = pkce();
    const authorization = new URL(`${idp.issuer}/auth`);
    authorization.search = new URLSearchParams({
      client_id: client,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'openid profile email',
      state: 's1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    const approver = user('approver');
    expect(await authorizeInBrowser(authorization.href, { username: 'approver', password: 'wrong' })).toBeUndefined();
    const callback = await authorizeInBrowser(authorization.href, { username: approver.username, password: approver.password });
    expect(callback?.origin + (callback?.pathname ?? '')).toBe(redirectUri);
    expect(callback?.searchParams.get('state')).toBe('s1');

    const exchanged = await token(idp, {
      grant_type: 'authorization_code',
      code: callback?.searchParams.get('code') ?? '',
      redirect_uri: redirectUri,
      client_id: client,
      code_verifier: verifier,
    });
    expect(exchanged.status).toBe(200);
    expect(await verify(idp, exchanged.body.access_token ?? '')).toMatchObject({
      sub: approver.sub,
      azp: client,
      realm_access: { roles: ['approver'] },
    });
    expect(exchanged.body.refresh_token !== undefined).toBe(refresh);
    if (refresh) {
      const refreshed = await token(idp, {
        grant_type: 'refresh_token',
        refresh_token: exchanged.body.refresh_token ?? '',
        client_id: client,
      });
      expect(refreshed.status).toBe(200);
      expect(await verify(idp, refreshed.body.access_token ?? '')).toMatchObject({ sub: approver.sub, groups: ['/approvers'] });
    }
  });
});
