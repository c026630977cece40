import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { ReferenceWorker } from '../src/worker/worker.js';
import { sha256 } from './helpers/files-fixtures.js';
import { uploadAttachment, uploadZip, zipOf } from './helpers/attachments-fixtures.js';
import { call, startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * The reference worker resolving a run's attachments (and variables) through the internal routes in a
 * real run: the manifest it reads is the one the run's committed version pinned, not the draft as it is
 * when the run starts.
 */

const TOKEN = 'attachments-e2e-internal-token-0123456789';

const DEFINITION: FlowDefinition = {
  steps: [
    {
      id: 'report',
      handler: 'general.noop',
      config: {
        outputs: {
          count: '{{ attachments.count }}',
          files: '{{ attachments.items }}',
          region: '{{ variables.region }}',
        },
      },
    },
  ],
  edges: [],
  inputs: [],
  target_roles: [],
};

let world: World;
let worker: ReferenceWorker | undefined;

beforeAll(async () => {
  world = await startWorld({ SERVICE_INTERNAL_API_TOKEN: TOKEN });
});
afterAll(async () => {
  await worker?.stop();
  await world?.close();
});

async function finished(id: string): Promise<{ status: string; outputs_json: Record<string, unknown>; error_json: unknown }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const row = await world.knex()('runs').where({ id }).first('status', 'outputs_json', 'error_json');
    if (['succeeded', 'failed', 'cancelled'].includes(row.status)) return row;
    if (Date.now() > deadline) throw new Error(`run ${id} still ${row.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the reference worker reads a run’s pinned attachments', () => {
  it('renders {{ attachments.… }} from the version the run executes, after the draft changed', async () => {
    const v1 = Buffer.from('hostname r1 # v1\n');
    const v2 = Buffer.from('hostname r1 # v2\n');
    const role = Buffer.from('- debug: {}\n');
    const created = await call(world, 'alice', 'POST', '/flows', { name: 'attachments-e2e', definition: DEFINITION });
    const flow = created.body.id as string;
    expect((await call(world, 'alice', 'POST', '/variables', { name: 'region', type: 'string', value: 'eu-west' })).status).toBe(201);
    expect((await uploadAttachment(world, flow, 'configs/r1.cfg', v1)).status).toBe(201);
    expect((await uploadZip(world, flow, await zipOf({ 'roles/base/tasks/main.yml': role }))).status).toBe(201);
    expect((await call(world, 'alice', 'POST', `/flows/${flow}/commit`, { message: 'v1' })).status).toBe(201);
    const changed = await uploadAttachment(world, flow, 'configs/r1.cfg', v2, 'alice', 'acme', { overwrite: 'true' });
    expect(changed.status).toBe(200);

    const started = await call(world, 'dave', 'POST', '/runs', { flow_id: flow });
    expect(started.status).toBe(201);
    worker = new ReferenceWorker({
      serverUrl: world.url,
      internalApiToken: TOKEN,
      workerId: 'attachments-e2e',
      capacity: 1,
      shutdownGraceSeconds: 5,
      callbackRetry: { attempts: 3, maxElapsedMs: 5_000, baseDelayMs: 20, maxDelayMs: 200 },
    });
    worker.start();

    const run = await finished(started.body.id);
    expect(run.status).toBe('succeeded');
    expect(run.outputs_json).toEqual({
      count: 2,
      region: 'eu-west',
      files: [
        { path: 'configs/r1.cfg', sha256: sha256(v1), size_bytes: v1.length, content_type: 'text/plain; charset=utf-8' },
        { path: 'roles/base/tasks/main.yml', sha256: sha256(role), size_bytes: role.length, content_type: 'text/plain; charset=utf-8' },
      ],
    });
    const logs = await world.knex()('run_events').where({ run_id: started.body.id, type: 'log' }).pluck('data');
    const lines = logs.map((d: unknown) => (typeof d === 'string' ? JSON.parse(d) : d).message as string);
    expect(lines).toContainEqual(expect.stringContaining(`configs/r1.cfg sha256:${sha256(v1)}`));
  });
});
