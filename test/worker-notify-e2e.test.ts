import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { verifySignature } from '../src/shared/webhooks/signing.js';
import { ReferenceWorker } from '../src/worker/worker.js';
import { createDestination, startHttpReceiver, until, type HttpReceiver } from './helpers/notifications-fixtures.js';
import { call, createSecret, seedFlow, startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * A `general.noop -> flow.notify` run under the reference worker: the worker reads the destination from
 * the daemon (`GET /internal/notification-destinations/{id}`, its signing secret resolved there) and
 * delivers once to a receiver that checks the signature; a destination the run's organization does not
 * have fails the step coded, and nothing is sent.
 */

const TOKEN = 'worker-notify-e2e-internal-token';
const SIGNING_KEY = 'worker-notify-e2e-signing-key';
const env = {
  SERVICE_INTERNAL_API_TOKEN: TOKEN,
  SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
  SERVICE_SECRETS_ENCRYPTION_KEY: 'ef'.repeat(32),
};

const notifyFlow = (destinationId: string): FlowDefinition => ({
  steps: [
    { id: 'prepare', handler: 'general.noop', config: { outputs: { release: 'r42' } } },
    { id: 'tell', handler: 'flow.notify', config: { destination_id: destinationId, title: 'Release {{ steps.prepare.outputs.release }}' } },
  ],
  edges: [{ from: 'prepare', to: 'tell' }],
  inputs: [],
  target_roles: [],
});

let world: World;
let worker: ReferenceWorker | undefined;
let receiver: HttpReceiver;
const flows: Record<string, string> = {};
const knex = () => world.knex();

beforeAll(async () => {
  world = await startWorld(env);
  receiver = await startHttpReceiver();
  await createSecret(world, 'alice', 'notify-key', SIGNING_KEY);
  const destination = await createDestination(world, {
    name: 'release hook',
    kind: 'webhook',
    config: { url: `${receiver.url}/release`, signing_secret_ref: "{{ secret('notify-key') }}" },
  });
  flows.known = await seedFlow(knex(), world.ids.acme!, { name: 'notify-known', versions: [notifyFlow(destination.id)] });
  flows.unknown = await seedFlow(knex(), world.ids.acme!, { name: 'notify-unknown', versions: [notifyFlow(randomUUID())] });
  worker = new ReferenceWorker({
    serverUrl: world.url,
    internalApiToken: TOKEN,
    workerId: 'notify-step-e2e-worker',
    capacity: 2,
    shutdownGraceSeconds: 5,
    outboundAllowedNetworks: ['127.0.0.0/8'],
    outboundTimeoutMs: 5_000,
    callbackRetry: { attempts: 5, maxElapsedMs: 10_000, baseDelayMs: 20, maxDelayMs: 200 },
  });
  worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await world?.close();
  await receiver?.close();
});

async function runToEnd(flow: string): Promise<{ id: string; status: string; error_json: { code: string } | null }> {
  const answer = await call(world, 'dave', 'POST', '/runs', { flow_id: flows[flow] });
  expect(answer.status).toBe(201);
  const id = answer.body.id as string;
  await until(async () => ['succeeded', 'failed'].includes((await knex()('runs').where({ id }).first('status')).status as string), 60_000);
  return knex()('runs').where({ id }).first('id', 'status', 'error_json');
}

const stepRuns = async (runId: string): Promise<{ step_id: string; status: string; error_json: { code: string } | null }[]> =>
  knex()('step_runs').where({ run_id: runId }).orderBy('created_at').select('step_id', 'status', 'error_json');

describe('flow.notify under the reference worker', () => {
  it('delivers once to a webhook destination whose receiver checks the signature', async () => {
    const run = await runToEnd('known');
    expect(run.status).toBe('succeeded');
    expect((await stepRuns(run.id)).map((r) => [r.step_id, r.status])).toEqual([
      ['prepare', 'succeeded'],
      ['tell', 'succeeded'],
    ]);
    const got = receiver.received.filter(
      (r) => r.path === '/release' && (JSON.parse(r.body) as { run?: { id: string } }).run?.id === run.id,
    );
    expect(got).toHaveLength(1);
    const check = verifySignature({
      key: SIGNING_KEY,
      timestampHeader: got[0]!.headers['x-service-timestamp'],
      signatureHeader: got[0]!.headers['x-service-signature'],
      rawBody: Buffer.from(got[0]!.body, 'utf8'),
      nowSeconds: Math.floor(Date.now() / 1000),
      replayWindowSeconds: 300,
    });
    expect(check).toEqual({ ok: true });
    expect(JSON.parse(got[0]!.body)).toMatchObject({ event: 'flow.notify', step_id: 'tell', title: 'Release r42' });
  });

  it('fails the step coded for a destination the organization does not have, sending nothing', async () => {
    const before = receiver.received.length;
    const run = await runToEnd('unknown');
    expect(run.status).toBe('failed');
    expect(run.error_json).toMatchObject({ code: 'notification_destination_not_found', step_id: 'tell' });
    expect((await stepRuns(run.id)).map((r) => [r.step_id, r.status, r.error_json?.code ?? null])).toEqual([
      ['prepare', 'succeeded', null],
      ['tell', 'failed', 'notification_destination_not_found'],
    ]);
    expect(receiver.received.length).toBe(before);
  });
});
