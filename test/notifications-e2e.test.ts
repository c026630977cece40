import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { ReferenceWorker } from '../src/worker/worker.js';
import { BACKEND } from './helpers/backend.js';
import { startTestDaemonOn, type TestDaemon } from './helpers/daemon.js';
import { call, seedFlow, startWorld, type World } from './helpers/webhooks-fixtures.js';
import {
  createDestination,
  startHttpReceiver,
  startSmtpSink,
  until,
  type HttpReceiver,
  type SmtpSink,
} from './helpers/notifications-fixtures.js';

/**
 * Runs executed by the reference worker notify their flow's subscribers exactly once each: a webhook
 * subscribed to the flow, a webhook by the flow defaults, and e-mail. On PostgreSQL a second daemon on
 * the same database sends too, both woken by every message, and still each message arrives once.
 */

const TOKEN = 'notifications-e2e-internal-token';
const env = {
  SERVICE_INTERNAL_API_TOKEN: TOKEN,
  SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
  SERVICE_SECRETS_ENCRYPTION_KEY: 'cd'.repeat(32),
};
const SINGLE: FlowDefinition = { steps: [{ id: 'only', handler: 'general.noop', config: {} }], edges: [], inputs: [], target_roles: [] };
const BROKEN: FlowDefinition = {
  steps: [{ id: 'deploy', handler: 'container.run', config: { image: 'alpine:3' } }],
  edges: [],
  inputs: [],
  target_roles: [],
};

let world: World;
let second: TestDaemon | undefined;
let worker: ReferenceWorker | undefined;
let receiver: HttpReceiver;
let smtp: SmtpSink;
const flows: Record<string, string> = {};
const knex = () => world.knex();

beforeAll(async () => {
  world = await startWorld(env);
  if (BACKEND === 'postgres') second = await startTestDaemonOn(world.daemon.location, { ...env, SERVICE_IDP_ISSUER: world.idp.issuer });
  receiver = await startHttpReceiver();
  smtp = await startSmtpSink();
  flows.ok = await seedFlow(knex(), world.ids.acme!, { name: 'ok', versions: [SINGLE] });
  flows.broken = await seedFlow(knex(), world.ids.acme!, { name: 'broken', versions: [BROKEN] });
  const subscribed = await createDestination(world, { name: 'subscribed', kind: 'webhook', config: { url: `${receiver.url}/subscribed` } });
  await createDestination(world, {
    name: 'by default',
    kind: 'webhook',
    config: { url: `${receiver.url}/default` },
    default_events: ['run.succeeded', 'run.failed'],
  });
  const mail = await createDestination(world, {
    name: 'mail',
    kind: 'email',
    config: { smtp_host: '127.0.0.1', smtp_port: smtp.port, smtp_security: 'none', from: 'svc@example.test', to: ['ops@example.test'] },
  });
  for (const flowId of Object.values(flows)) {
    for (const dest of [subscribed, mail]) {
      const sub = await call(world, 'dave', 'POST', `/flows/${flowId}/notifications/subscriptions`, {
        destination_id: dest.id,
        events: ['run.succeeded', 'run.failed'],
      });
      expect(sub.status).toBe(201);
    }
  }
  worker = new ReferenceWorker({
    serverUrl: world.url,
    internalApiToken: TOKEN,
    workerId: 'notify-e2e-worker',
    capacity: 4,
    shutdownGraceSeconds: 5,
    callbackRetry: { attempts: 5, maxElapsedMs: 10_000, baseDelayMs: 20, maxDelayMs: 200 },
  });
  worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await second?.close();
  await world?.close();
  await receiver?.close();
  await smtp?.close();
});

async function startRun(flow: string): Promise<string> {
  const answer = await call(world, 'dave', 'POST', '/runs', { flow_id: flows[flow] });
  expect(answer.status).toBe(201);
  return answer.body.id as string;
}

/** What each receiver got about `runId`: event names by path, and the e-mails. */
function receivedFor(runId: string) {
  const byPath: Record<string, string[]> = {};
  for (const got of receiver.received) {
    const body = JSON.parse(got.body) as { event: string; run?: { id: string } };
    if (body.run?.id === runId) (byPath[got.path] ??= []).push(body.event);
  }
  const mails = smtp.mails.filter((mail) => mail.text?.includes(runId)).map((mail) => mail.subject);
  return { byPath, mails };
}

async function settled(runIds: readonly string[], status: string): Promise<void> {
  await until(async () => {
    const runs = await knex()('runs').whereIn('id', runIds).select('status');
    return runs.length === runIds.length && runs.every((r) => r.status === status);
  }, 60_000);
  await until(async () => {
    const rows = await knex()('notification_outbox').whereIn('run_id', runIds).whereNot('event', 'run.started').select('status');
    return rows.length === runIds.length * 3 && rows.every((r) => r.status === 'delivered');
  }, 60_000);
}

describe('a run under the reference worker', () => {
  it("notifies each of its flow's subscribers once when it succeeds", async () => {
    const runId = await startRun('ok');
    await settled([runId], 'succeeded');
    const got = receivedFor(runId);
    expect(got.byPath).toEqual({ '/subscribed': ['run.succeeded'], '/default': ['run.succeeded'] });
    expect(got.mails).toHaveLength(1);
    expect(got.mails[0]).toContain('succeeded');
  });

  it('notifies each once when it fails', async () => {
    const runId = await startRun('broken');
    await settled([runId], 'failed');
    const got = receivedFor(runId);
    expect(got.byPath).toEqual({ '/subscribed': ['run.failed'], '/default': ['run.failed'] });
    expect(got.mails).toHaveLength(1);
  });

  it.runIf(BACKEND === 'postgres')('notifies each once per run with two daemons sending', async () => {
    const runIds: string[] = [];
    for (let i = 0; i < 8; i += 1) runIds.push(await startRun(i % 2 === 0 ? 'ok' : 'broken'));
    await settled(
      runIds.filter((_, i) => i % 2 === 0),
      'succeeded',
    );
    await settled(
      runIds.filter((_, i) => i % 2 === 1),
      'failed',
    );
    for (const [i, runId] of runIds.entries()) {
      const event = i % 2 === 0 ? 'run.succeeded' : 'run.failed';
      const got = receivedFor(runId);
      expect(got.byPath).toEqual({ '/subscribed': [event], '/default': [event] });
      expect(got.mails).toHaveLength(1);
    }
    const instances = await knex()('notification_attempts').distinct('instance').pluck('instance');
    expect(instances.length).toBeGreaterThanOrEqual(1);
  });
});
