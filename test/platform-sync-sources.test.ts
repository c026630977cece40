import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadStream } from './helpers/files-fixtures.js';
import { apply, asRoot, createProfile, plan, variablesBundle, variablesOf } from './helpers/platform-sync-fixtures.js';
import { call, createSecret, startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * A profile's sources besides an inline bundle: another installation (a second daemon on its own
 * database, reached through the outbound guard with loopback allowed, its export operation polled) and a
 * file of the file repositories; and what each refuses.
 */

let local: World;
let peer: World;

beforeAll(async () => {
  [local, peer] = await Promise.all([startWorld({ SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8' }), startWorld()]);
  await peer
    .knex()('variables')
    .insert([
      { org_id: peer.ids.acme, name: 'region', type: 'string', value_json: JSON.stringify('eu-west-1') },
      { org_id: peer.ids.acme, name: 'mtu', type: 'number', value_json: JSON.stringify(9000) },
    ]);
  // The peer's platform admin token, held here as a secret of acme (the profile's home organization).
  await createSecret(local, 'alice', 'peer-token', peer.as.root!.replace(/^Bearer /, ''));
});
afterAll(async () => {
  await Promise.all([local?.close(), peer?.close()]);
});

const installation = (fields: Record<string, unknown> = {}) => ({
  kind: 'installation',
  base_url: peer.url,
  token_ref: "{{ secret('peer-token') }}",
  org: 'acme',
  ...fields,
});

describe('platform sync sources', () => {
  it("plans and applies another installation's export, read through its configuration exchange operation", async () => {
    const id = await createProfile(local, { source: installation(), target: { scope: 'org', org: 'acme' } });
    const planned = await plan(local, id);
    expect(planned.status, JSON.stringify(planned.body)).toBe(201);
    expect(planned.body.summary).toMatchObject({ add: 2, change: 0, destroy: 0 });
    // The peer ran an export operation for it.
    const operations = await peer.knex()('config_exchange_operations').where({ mode: 'export' });
    expect(operations).toHaveLength(1);

    expect((await apply(local, id, planned.body.id)).status).toBe(201);
    expect(await variablesOf(local.knex(), local.ids.acme!)).toEqual({ region: 'eu-west-1', mtu: 9000 });

    // An edit on the peer shows as exactly that change in the next plan.
    await peer
      .knex()('variables')
      .where({ org_id: peer.ids.acme, name: 'mtu' })
      .update({ value_json: JSON.stringify(1500) });
    const next = await plan(local, id);
    expect(next.body.changes.map((c: { action: string; key: string }) => `${c.action} ${c.key}`)).toEqual(['update mtu']);
  });

  it('answers 502 sync_source_unavailable when the other installation cannot be reached or refuses the token', async () => {
    const refusedAddress = await createProfile(local, {
      source: installation({ base_url: 'http://10.255.255.1:8080' }),
      target: { scope: 'org', org: 'acme' },
    });
    const notAllowed = await plan(local, refusedAddress);
    expect(notAllowed.status).toBe(502);
    expect(notAllowed.body).toMatchObject({ code: 'sync_source_unavailable', reason: 'address_not_allowed' });

    await createSecret(local, 'alice', 'wrong-token', 'not-a-token');
    const wrongToken = await createProfile(local, {
      source: installation({ token_ref: "{{ secret('wrong-token') }}" }),
      target: { scope: 'org', org: 'acme' },
    });
    const refused = await plan(local, wrongToken);
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ code: 'sync_source_unavailable', reason: 'refused' });
  });

  it('answers 422 sync_source_invalid when the token reference does not resolve', async () => {
    const id = await createProfile(local, {
      source: installation({ token_ref: "{{ secret('no-such-secret') }}" }),
      target: { scope: 'org', org: 'acme' },
    });
    const refused = await plan(local, id);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'sync_source_invalid', reason: 'token_unresolvable' });
  });

  it('reads a bundle file of the home organization, and refuses one it cannot read', async () => {
    const ensured = await call(local, 'bob', 'POST', '/file-repositories/ensure-default', undefined, 'globex');
    const uploaded = await uploadStream(
      local,
      ensured.body.id,
      { name: 'bundle.yaml' },
      Buffer.from(variablesBundle({ site: 'lab' })),
      'bob',
      'globex',
    );
    expect(uploaded.status).toBeLessThan(300);
    const fileId = uploaded.body.id as string;

    const filed = await createProfile(local, { source: { kind: 'file', file_id: fileId }, target: { scope: 'org', org: 'globex' } });
    const planned = await plan(local, filed);
    expect(planned.status).toBe(201);
    expect(planned.body.changes).toEqual([expect.objectContaining({ action: 'create', key: 'site' })]);

    // For acme the same file is another organization's: never read.
    const foreign = await createProfile(local, { source: { kind: 'file', file_id: fileId }, target: { scope: 'org', org: 'acme' } });
    const refused = await plan(local, foreign);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'sync_source_invalid', reason: 'file_not_found' });
    expect(await asRoot(local, 'GET', `/platform-sync/profiles/${foreign}/runs`)).toMatchObject({ body: { total: 0 } });
  });
});
