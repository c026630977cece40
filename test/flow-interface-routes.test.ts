import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { call, seedDevice, seedFlow, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

let world: World;
const ids: Record<string, string> = {};

const LAUNCHED: FlowDefinition = {
  steps: [
    {
      id: 'push',
      handler: 'general.noop',
      config: {
        outputs: {
          region: '{{ inputs.region }}',
          line: 'set count {{ inputs.count }} after {{ steps.prep.outputs.x }}',
          routers: '{{ targets.routers }}',
          untouched: 'no templates here',
        },
      },
      approval: { message: 'Push to {{ params.region }} ({{ inputs.note }})?' },
    },
  ],
  edges: [],
  inputs: [
    { name: 'region', type: 'select', options: ['eu-west', 'eu-central', 'us-east'], required: true },
    { name: 'count', type: 'integer', min: 1, max: 5, required: true },
    { name: 'note', type: 'string', default: 'routine' },
    { name: 'site', type: 'string' },
  ],
  target_roles: [{ name: 'routers', min_devices: 1, max_devices: 2 }],
};

beforeAll(async () => {
  world = await startWorld();
  const db = world.knex();
  ids.flow = await seedFlow(db, world.ids.acme!, { name: 'launched', versions: [LAUNCHED] });
  ids.draftOnly = await seedFlow(db, world.ids.acme!, { name: 'draft-only' });
  ids.foreignFlow = await seedFlow(db, world.ids.globex!, { name: 'theirs', versions: [LAUNCHED] });
  ids.r1 = await seedDevice(db, world.ids.acme!, 'r1');
  ids.r2 = await seedDevice(db, world.ids.acme!, 'r2');
  ids.shared = await seedDevice(db, world.ids.commons!, 'shared-core');
  ids.foreign = await seedDevice(db, world.ids.globex!, 'g1');
  await db('sites').insert([
    { org_id: world.ids.acme, name: 'Frankfurt' },
    { org_id: world.ids.acme, name: 'Amsterdam' },
    { org_id: world.ids.globex, name: 'Their site' },
  ]);
  const object = (org: string, type: string, name: string, stale = false) => ({
    org_id: org,
    provider_id: 'netbox:main',
    object_type: type,
    external_id: name,
    name,
    deleted_at: stale ? new Date() : null,
  });
  await db('inventory_objects').insert([
    object(world.ids.acme!, 'vlan', 'vlan-100'),
    object(world.ids.acme!, 'vlan', 'vlan-200', true),
    object(world.ids.acme!, 'prefix', '10.0.0.0/24'),
    object(world.ids.globex!, 'vlan', 'vlan-theirs'),
  ]);
  const repository = async (org: string) =>
    ((await db('file_repositories').insert({ org_id: org, name: 'default', kind: 'local' }).returning('id')) as { id: string }[])[0]!.id;
  const file = (org: string, repositoryId: string, folder: string, name: string, contentType: string) => ({
    org_id: org,
    repository_id: repositoryId,
    folder,
    name,
    content_type: contentType,
    size_bytes: 1,
    sha256: '0'.repeat(64),
    storage_key: `files/${name}`,
  });
  const ours = await repository(world.ids.acme!);
  await db('files').insert([
    file(world.ids.acme!, ours, 'images', 'ios-17.bin', 'application/octet-stream'),
    file(world.ids.acme!, ours, '', 'site.yaml', 'application/yaml'),
    file(world.ids.globex!, await repository(world.ids.globex!), '', 'their.bin', 'application/octet-stream'),
  ]);
  await call(world, 'alice', 'POST', '/variables', { name: 'ntp_server', type: 'string', value: '10.0.0.1' });
  await call(world, 'alice', 'POST', '/variables', { name: 'limits', type: 'json', value: { a: 1 } });
});
afterAll(() => world?.close());

const options = (body: Record<string, unknown>, flow = ids.flow) => call(world, 'carol', 'POST', `/flows/${flow}/interface/options`, body);

describe('GET /flow-interface/option-sources', () => {
  it('lists the registry: every source available', async () => {
    const answer = await call(world, 'carol', 'GET', '/flow-interface/option-sources');
    expect(answer.status).toBe(200);
    const byKind = Object.fromEntries(answer.body.items.map((s: { kind: string; available: boolean }) => [s.kind, s.available]));
    expect(byKind).toEqual({ static: true, variables: true, sites: true, devices: true, inventory_objects: true, files: true });
  });
});

describe('POST /flows/{flow_id}/interface/options', () => {
  it("answers a select input's own options, filtered and paged", async () => {
    const answer = await options({ input: 'region', q: 'EU', limit: 1 });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ flow_id: ids.flow, version: 1, source: 'static', total: 2, limit: 1, offset: 0 });
    expect(answer.body.items).toEqual([{ value: 'eu-west', label: 'eu-west', description: null }]);
  });

  it("answers a target role's devices, the organization's and the shared one's, never another's", async () => {
    const answer = await options({ target_role: 'routers' });
    expect(answer.status).toBe(200);
    expect(answer.body.source).toBe('devices');
    expect(answer.body.items.map((i: { label: string }) => i.label)).toEqual(['r1', 'r2', 'shared-core']);
    expect(answer.body.items[0]).toMatchObject({ value: ids.r1, description: 'r1.example.test' });
    const narrowed = await options({ target_role: 'routers', q: 'r2' });
    expect(narrowed.body.items.map((i: { value: string }) => i.value)).toEqual([ids.r2]);
  });

  it('answers sites and variables (names, never values) for a string input', async () => {
    const sites = await options({ input: 'site', source: { kind: 'sites' } });
    expect(sites.body.items.map((i: { label: string }) => i.label)).toEqual(['Amsterdam', 'Frankfurt']);
    const variables = await options({ input: 'site', source: { kind: 'variables', filter: { type: 'json' } } });
    expect(variables.body.items).toEqual([{ value: 'limits', label: 'limits', description: 'json' }]);
  });

  it("answers the providers' live inventory objects and the files by path, never another organization's", async () => {
    const objects = await options({ input: 'site', source: { kind: 'inventory_objects' } });
    expect(objects.status).toBe(200);
    expect(objects.body.items.map((i: { label: string }) => i.label)).toEqual(['10.0.0.0/24', 'vlan-100']);
    const vlans = await options({ input: 'site', source: { kind: 'inventory_objects', filter: { object_type: 'vlan' } } });
    expect(vlans.body.items).toEqual([expect.objectContaining({ label: 'vlan-100', description: 'vlan' })]);
    const files = await options({ input: 'site', source: { kind: 'files' } });
    expect(files.body.items.map((i: { label: string }) => i.label)).toEqual(['images/ios-17.bin', 'site.yaml']);
    const images = await options({ input: 'site', source: { kind: 'files', filter: { folder: 'images' } }, q: 'ios' });
    expect(images.body).toMatchObject({ total: 1, items: [{ label: 'images/ios-17.bin', description: 'application/octet-stream' }] });
  });

  it('refuses what does not fit with coded answers', async () => {
    const cases: [Record<string, unknown>, number, string, string?][] = [
      [{ input: 'nope' }, 422, 'validation_failed', 'input'],
      [{ target_role: 'nope' }, 422, 'validation_failed', 'target_role'],
      [{ input: 'region', target_role: 'routers' }, 422, 'validation_failed'],
      [{}, 422, 'validation_failed'],
      [{ input: 'site', source: { kind: 'warp_drive' } }, 422, 'validation_failed', 'source.kind'],
      [{ input: 'region', source: { kind: 'sites' } }, 422, 'validation_failed', 'source.kind'],
      [{ input: 'site', source: { kind: 'sites', filter: { colour: 'red' } } }, 422, 'validation_failed', 'source.filter.colour'],
      [{ input: 'site', source: { kind: 'files', filter: { colour: 'red' } } }, 422, 'validation_failed', 'source.filter.colour'],
      [{ input: 'region', limit: 0 }, 422, 'validation_failed', 'limit'],
    ];
    for (const [body, status, code, path] of cases) {
      const answer = await options(body);
      expect([JSON.stringify(body), answer.status, answer.body.code]).toEqual([JSON.stringify(body), status, code]);
      if (path) expect(answer.body.errors[0].path).toBe(path);
    }
  });

  it("answers 404 for another organization's flow, an unknown one or an unknown version; 400 flow_not_committed for a draft-only flow", async () => {
    for (const flow of [ids.foreignFlow, UNKNOWN_ID, 'nope']) {
      const missing = await options({ input: 'region' }, flow);
      expect([missing.status, missing.body.code]).toEqual([404, 'resource_not_found']);
    }
    const noVersion = await options({ input: 'region', version: 9 });
    expect([noVersion.status, noVersion.body.code]).toEqual([404, 'resource_not_found']);
    const draft = await options({ input: 'region' }, ids.draftOnly);
    expect([draft.status, draft.body.code]).toEqual([400, 'flow_not_committed']);
    // The draft has no inputs: naming it answers the input as unknown, not the flow.
    expect((await options({ input: 'region', version: 'draft' }, ids.draftOnly)).body.errors[0].path).toBe('input');
  });
});

describe('POST /flows/{flow_id}/interface/validate', () => {
  const validate = (body: Record<string, unknown>) => call(world, 'carol', 'POST', `/flows/${ids.flow}/interface/validate`, body);

  it('accepts a launch admission would take, shared devices included', async () => {
    const answer = await validate({ params: { region: 'eu-west', count: 2 }, targets: { routers: [ids.r1, ids.shared] } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ flow_id: ids.flow, version: 1, valid: true, issues: [] });
  });

  it('answers every issue with its path, JSON Path and code', async () => {
    const answer = await validate({
      params: { region: 'mars', count: 9, extra: 1, 'odd key': true },
      targets: { routers: [ids.r1, ids.foreign], switches: [ids.r2] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.valid).toBe(false);
    const issues = answer.body.issues.map((i: { path: string; json_path: string; code: string }) => [i.path, i.json_path, i.code]);
    expect(issues).toEqual(
      expect.arrayContaining([
        ['params.region', '$.params.region', 'not_in_options'],
        ['params.count', '$.params.count', 'out_of_bounds'],
        ['params.extra', '$.params.extra', 'unknown_param'],
        ['params.odd key', "$.params['odd key']", 'unknown_param'],
        ['targets.switches', '$.targets.switches', 'invalid_targets'],
      ]),
    );
    const missing = await validate({ params: {}, targets: { routers: [ids.foreign] } });
    const codes = missing.body.issues.map((i: { path: string; code: string }) => [i.path, i.code]);
    expect(codes).toEqual(
      expect.arrayContaining([
        ['params.region', 'required'],
        ['params.count', 'required'],
        ['targets.routers[0]', 'unknown_device'],
      ]),
    );
    expect((await validate({ params: 'text' })).body.issues[0]).toMatchObject({ path: 'params', code: 'not_an_object' });
    expect((await validate({ params: {}, unknown: 1 })).status).toBe(422);
  });
});

describe('POST /flows/{flow_id}/interface/preview-resolve', () => {
  it('answers each input with its origin and every launch template rendered, what only the run knows pending', async () => {
    const answer = await call(world, 'carol', 'POST', `/flows/${ids.flow}/interface/preview-resolve`, {
      params: { region: 'eu-central', count: 3 },
      targets: { routers: [ids.r1] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ valid: true, issues: [], params: { region: 'eu-central', count: 3, note: 'routine' } });
    expect(answer.body.inputs).toEqual([
      { name: 'region', type: 'select', origin: 'given', value: 'eu-central' },
      { name: 'count', type: 'integer', origin: 'given', value: 3 },
      { name: 'note', type: 'string', origin: 'default', value: 'routine' },
      { name: 'site', type: 'string', origin: 'absent', value: null },
    ]);
    const byPath = Object.fromEntries(answer.body.references.map((r: { path: string }) => [r.path, r]));
    expect(Object.keys(byPath).sort()).toEqual([
      'approval.message',
      'config.outputs.line',
      'config.outputs.region',
      'config.outputs.routers',
    ]);
    expect(byPath['config.outputs.region']).toMatchObject({ step_id: 'push', resolved: true, value: 'eu-central', pending: [] });
    expect(byPath['config.outputs.routers']).toMatchObject({ resolved: true, value: [ids.r1] });
    expect(byPath['approval.message']).toMatchObject({ resolved: true, value: 'Push to eu-central (routine)?' });
    expect(byPath['config.outputs.line']).toMatchObject({ resolved: false, value: null, pending: ['steps.prep.outputs.x'] });
  });
});
