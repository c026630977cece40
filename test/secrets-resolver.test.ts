import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecretsModule, type SecretsModule } from '../src/daemon/domains/secrets/module.js';
import { SecretBackendError, SecretNotFoundError, SecretReferenceError } from '../src/daemon/domains/secrets/secret-resolver.js';
import { pickSecretValue } from '../src/shared/secrets/pick-value.js';
import { parseSecretReference } from '../src/shared/secrets/reference.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg } from './helpers/seed.js';

describe('pickSecretValue', () => {
  it.each([
    ['value before everything', { key: 'k', token: 't', value: 'v' }, 'v'],
    ['secret before hmac', { hmac: 'h', secret: 's' }, 's'],
    ['hmac before hmac_key', { hmac_key: 'hk', hmac: 'h' }, 'h'],
    ['hmac_key before token', { token: 't', hmac_key: 'hk' }, 'hk'],
    ['token before key', { key: 'k', token: 't', other: 'o' }, 't'],
    ['key', { key: 'k', other: 'o' }, 'k'],
    ['the only key, whatever its name', { password: 'p' }, 'p'],
    ['a present key even when empty', { value: '', only: 'x' }, ''],
  ])('takes %s', (_, folder, expected) => {
    expect(pickSecretValue(folder)).toBe(expected);
  });

  it('takes nothing from several keys none of which is preferred, nor from an empty folder', () => {
    expect(pickSecretValue({ username: 'u', password: 'p' })).toBeUndefined();
    expect(pickSecretValue({})).toBeUndefined();
  });
});

describe('parseSecretReference', () => {
  it.each([
    ['builtin://orgs/acme/secrets/db/primary', { kind: 'location', scheme: 'builtin', orgSlug: 'acme', path: 'db/primary' }],
    [
      'builtin://orgs/acme/secrets/db/primary#password',
      { kind: 'location', scheme: 'builtin', orgSlug: 'acme', path: 'db/primary', key: 'password' },
    ],
    ["{{ secret('builtin://orgs/acme/secrets/db') }}", { kind: 'location', scheme: 'builtin', orgSlug: 'acme', path: 'db' }],
    ['{{secret("db/primary#password")}}', { kind: 'name', name: 'db/primary', key: 'password' }],
    ["{{ secret('api-token') }}", { kind: 'name', name: 'api-token' }],
  ])('reads %s', (text, expected) => {
    expect(parseSecretReference(text)).toEqual(expected);
  });

  it.each([
    ['a bare name (indistinguishable from a plain value)', 'api-token'],
    ['a path climbing out of the prefix', 'builtin://orgs/acme/secrets/../../globex/secrets/x'],
    ['a location outside any organization', 'builtin://secrets/x'],
    ['a bad key', 'builtin://orgs/acme/secrets/db#1bad'],
    ['an unclosed template', "{{ secret('db') }"],
    ['an empty template', "{{ secret('') }}"],
  ])('refuses %s', (_, text) => {
    expect(parseSecretReference(text)).toBeUndefined();
  });
});

describe('the resolver', () => {
  let daemon: TestDaemon;
  let secrets: SecretsModule;
  const ids: Record<string, string> = {};

  async function create(org: string, body: unknown): Promise<string> {
    const response = await fetch(`${daemon.url}/secrets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-org-id': org },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  beforeAll(async () => {
    daemon = await startTestDaemon({ SERVICE_AUTH_DISABLED: 'true' });
    ids.acme = await seedOrg(daemon.services.db.knex, 'acme');
    ids.globex = await seedOrg(daemon.services.db.knex, 'globex');
    secrets = await openSecretsModule(daemon.services);
    ids.hook = await create('acme', { name: 'webhook/ci', values: { hmac: 'acme-hmac', note: 'n' } });
    ids.db = await create('acme', { name: 'db', values: { username: 'app', password: 'acme-pw' } });
    ids.globexApi = await create('globex', { name: 'api', values: { token: 'globex-token' } });
  });
  afterAll(() => daemon?.close());

  const resolve = (orgId: string, reference: string) => secrets.resolver.resolveReference(orgId, reference);
  const refusal = (orgId: string, reference: string) =>
    resolve(orgId, reference).then(
      () => undefined,
      (error: unknown) => (error instanceof SecretReferenceError ? error.problem : error),
    );

  it('resolves a location, a name in a template, and a #key', async () => {
    expect(await resolve(ids.acme!, 'builtin://orgs/acme/secrets/webhook/ci')).toBe('acme-hmac');
    expect(await resolve(ids.acme!, "{{ secret('webhook/ci') }}")).toBe('acme-hmac');
    expect(await resolve(ids.acme!, "{{ secret('builtin://orgs/acme/secrets/db#password') }}")).toBe('acme-pw');
    expect(await resolve(ids.acme!, 'builtin://orgs/acme/secrets/db#username')).toBe('app');
  });

  it('refuses a reference into another organization, whether or not it exists there', async () => {
    expect(await refusal(ids.acme!, 'builtin://orgs/globex/secrets/api')).toBe('other_organization');
    expect(await refusal(ids.acme!, 'builtin://orgs/globex/secrets/nothing')).toBe('other_organization');
    // By name, only the caller's organization is searched.
    expect(await refusal(ids.acme!, "{{ secret('api') }}")).toBe('not_found');
    expect(await resolve(ids.globex!, "{{ secret('api') }}")).toBe('globex-token');
  });

  it('refuses malformed references, unknown schemes, unknown secrets, missing and ambiguous keys', async () => {
    expect(await refusal(ids.acme!, 'db')).toBe('malformed');
    expect(await refusal(ids.acme!, 'vault://orgs/acme/secrets/db')).toBe('unknown_scheme');
    expect(await refusal(ids.acme!, 'builtin://orgs/acme/secrets/nothing')).toBe('not_found');
    expect(await refusal(ids.acme!, 'builtin://orgs/acme/secrets/db#token')).toBe('key_missing');
    expect(await refusal(ids.acme!, 'builtin://orgs/acme/secrets/db')).toBe('key_ambiguous');
  });

  it('finds a secret only in its organization, and reads its folder live', async () => {
    expect(await secrets.resolver.find(ids.acme!, ids.db!)).toEqual({ id: ids.db, org_id: ids.acme, name: 'db' });
    expect(await secrets.resolver.find(ids.globex!, ids.db!)).toBeUndefined();
    expect(await secrets.resolver.find(ids.acme!, 'not-a-uuid')).toBeUndefined();
    expect(await secrets.resolver.readFolder(ids.db!)).toEqual({ username: 'app', password: 'acme-pw' });
    const missing = await secrets.resolver.readFolder('00000000-0000-4000-8000-000000000000').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(SecretNotFoundError);
    expect(missing).toBeInstanceOf(SecretBackendError);
  });

  it("does not share the shared organization's secrets with other tenants", async () => {
    await daemon.services.db.knex('organizations').where({ id: ids.globex }).update({ is_shared: true });
    daemon.services.orgAccess.invalidate();
    const read = await fetch(`${daemon.url}/secrets/${ids.globexApi}`, { headers: { 'x-org-id': 'acme' } });
    expect(read.status).toBe(404);
    const list = (await (await fetch(`${daemon.url}/secrets`, { headers: { 'x-org-id': 'acme' } })).json()) as { items: { id: string }[] };
    expect(list.items.map((s) => s.id)).not.toContain(ids.globexApi);
    expect(await refusal(ids.acme!, 'builtin://orgs/globex/secrets/api')).toBe('other_organization');
  });
});
