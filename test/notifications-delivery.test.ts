import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffMs } from '../src/daemon/domains/notifications/delivery/backoff.js';
import { BARE, call, createSecret, seedFlow, startWorld, type World } from './helpers/webhooks-fixtures.js';
import {
  createDestination,
  startHttpReceiver,
  startSmtpSink,
  until,
  type HttpReceiver,
  type SmtpSink,
} from './helpers/notifications-fixtures.js';

/**
 * Delivery by the daemon's own sender: real receivers, the clock moved past a retry's wait by the test
 * (the sender reads "now" from it), the jitter's draw fixed at 0.
 */

const SIGNING_KEY = 'delivery-signing-key';
const BASE_SECONDS = 60;

let world: World;
let receiver: HttpReceiver;
let smtp: SmtpSink;
let offsetMs = 0;
const ids: Record<string, string> = {};
const knex = () => world.knex();

beforeAll(async () => {
  world = await startWorld(
    {
      SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
      SERVICE_NOTIFICATION_RETRY_BASE_SECONDS: String(BASE_SECONDS),
      SERVICE_NOTIFICATION_MAX_ATTEMPTS: '3',
    },
    { clock: () => new Date(Date.now() + offsetMs), random: () => 0 },
  );
  receiver = await startHttpReceiver();
  smtp = await startSmtpSink();
  await createSecret(world, 'alice', 'hook-key', SIGNING_KEY);
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
  await smtp?.close();
});

/** A flow subscribed to one new destination for `events`; answers the flow's id and the destination's. */
async function subscribedFlow(name: string, destination: Record<string, unknown>, events: readonly string[]) {
  const flowId = await seedFlow(knex(), world.ids.acme!, { name, versions: [BARE] });
  const dest = await createDestination(world, destination);
  const sub = await call(world, 'dave', 'POST', `/flows/${flowId}/notifications/subscriptions`, { destination_id: dest.id, events });
  expect(sub.status).toBe(201);
  return { flowId, destinationId: dest.id as string };
}

async function startRun(flowId: string): Promise<string> {
  const answer = await call(world, 'dave', 'POST', '/runs', { flow_id: flowId });
  expect(answer.status).toBe(201);
  return answer.body.id as string;
}

const message = (runId: string) => knex()('notification_outbox').where({ run_id: runId }).first();
const attempts = (outboxId: string) => knex()('notification_attempts').where({ outbox_id: outboxId }).orderBy('attempt').select('*');
const at = (path: string) => receiver.received.filter((r) => r.path === path);

describe('the sender', () => {
  it('delivers a signed webhook message once, with the outbox id as idempotency key', async () => {
    const { flowId } = await subscribedFlow(
      'signed',
      { kind: 'webhook', config: { url: `${receiver.url}/signed`, signing_secret_ref: "{{ secret('hook-key') }}" } },
      ['run.started'],
    );
    const runId = await startRun(flowId);
    await until(async () => (await message(runId))?.status === 'delivered');
    const row = await message(runId);
    const [got] = at('/signed');
    expect(at('/signed')).toHaveLength(1);
    expect(got!.headers['x-idempotency-key']).toBe(row.id);
    const timestamp = got!.headers['x-service-timestamp'] as string;
    const expected = createHmac('sha256', SIGNING_KEY).update(`${timestamp}.`).update(got!.body).digest('hex');
    expect(got!.headers['x-service-signature']).toBe(expected);
    expect(JSON.parse(got!.body)).toMatchObject({ event: 'run.started', idempotency_key: row.id, run: { id: runId } });
    const recorded = await attempts(row.id);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ attempt: 1, outcome: 'delivered', status_code: 200 });
  });

  it('retries a 500 after the backoff, with the same idempotency key, and records both attempts', async () => {
    receiver.script('/flaky', [500]);
    const { flowId } = await subscribedFlow('flaky', { kind: 'webhook', config: { url: `${receiver.url}/flaky` } }, ['run.started']);
    const runId = await startRun(flowId);
    await until(async () => (await attempts((await message(runId))?.id ?? '00000000-0000-4000-8000-000000000000')).length === 1);
    const pending = await message(runId);
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500 });
    const first = (await attempts(pending.id))[0];
    expect(first).toMatchObject({ outcome: 'transient', status_code: 500, reason: 'http_status' });
    // random 0: half the first step, after the attempt ended.
    expect(pending.next_attempt_at.getTime() - first.finished_at.getTime()).toBe((BASE_SECONDS * 1000) / 2);

    offsetMs += BASE_SECONDS * 1000;
    await world.daemon.maintenance.runner.runAll('tick');
    await until(async () => (await message(runId)).status === 'delivered');
    expect((await attempts(pending.id)).map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'transient'],
      [2, 'delivered'],
    ]);
    const keys = at('/flaky').map((r) => r.headers['x-idempotency-key']);
    expect(keys).toEqual([pending.id, pending.id]);
  });

  it('gives up at once on a 400, recording the one attempt', async () => {
    receiver.script('/refusing', [400]);
    const { flowId } = await subscribedFlow('refused', { kind: 'webhook', config: { url: `${receiver.url}/refusing` } }, ['run.started']);
    const runId = await startRun(flowId);
    await until(async () => (await message(runId))?.status === 'failed');
    const row = await message(runId);
    expect(row).toMatchObject({ attempts: 1, last_status_code: 400 });
    expect((await attempts(row.id)).map((a) => a.outcome)).toEqual(['permanent']);
    offsetMs += 3600_000;
    await world.daemon.maintenance.runner.runAll('tick');
    expect(at('/refusing')).toHaveLength(1);
  });

  it('gives up a message whose organization was deactivated before it was sent, sending nothing more', async () => {
    receiver.script('/deactivated', [500]);
    const hook = { kind: 'webhook', config: { url: `${receiver.url}/deactivated` } };
    const { flowId } = await subscribedFlow('deactivated', hook, ['run.started']);
    const runId = await startRun(flowId);
    await until(async () => (await message(runId))?.status === 'pending' && (await message(runId)).attempts === 1);
    await knex()('organizations').where({ id: world.ids.acme }).update({ is_active: false });
    try {
      offsetMs += 3600_000;
      await world.daemon.maintenance.runner.runAll('tick');
      await until(async () => (await message(runId)).status === 'failed');
      const row = await message(runId);
      expect((await attempts(row.id)).map((a) => [a.outcome, a.reason])).toEqual([
        ['transient', 'http_status'],
        ['permanent', 'organization_inactive'],
      ]);
      expect(at('/deactivated')).toHaveLength(1);
    } finally {
      await knex()('organizations').where({ id: world.ids.acme }).update({ is_active: true });
    }
  });

  it('gives up a transient failure after the last attempt', async () => {
    receiver.script('/down', [503, 503, 503]);
    const { flowId } = await subscribedFlow('down', { kind: 'webhook', config: { url: `${receiver.url}/down` } }, ['run.started']);
    const runId = await startRun(flowId);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await until(async () => (await message(runId))?.attempts === attempt && (await message(runId)).status !== 'sending');
      offsetMs += 3600_000;
      await world.daemon.maintenance.runner.runAll('tick');
    }
    const row = await message(runId);
    expect(row).toMatchObject({ status: 'failed', attempts: 3 });
    expect(at('/down')).toHaveLength(3);
  });

  it('sends e-mail to the SMTP sink, and Slack, Mattermost and Teams their own shapes', async () => {
    const { flowId } = await subscribedFlow(
      'mailed',
      {
        kind: 'email',
        config: { smtp_host: '127.0.0.1', smtp_port: smtp.port, smtp_security: 'none', from: 'svc@example.test', to: ['ops@example.test'] },
      },
      ['run.started'],
    );
    for (const kind of ['slack', 'mattermost', 'teams']) {
      await createSecret(world, 'alice', `${kind}-url`, `${receiver.url}/${kind}`);
      const dest = await createDestination(world, { kind, config: { webhook_url_ref: `{{ secret('${kind}-url') }}` } });
      await call(world, 'dave', 'POST', `/flows/${flowId}/notifications/subscriptions`, {
        destination_id: dest.id,
        events: ['run.started'],
      });
    }
    const runId = await startRun(flowId);
    await until(async () => {
      const rows = await knex()('notification_outbox').where({ run_id: runId }).select('status');
      return rows.length === 4 && rows.every((r) => r.status === 'delivered');
    });
    const mail = smtp.mails.find((m) => m.subject?.includes('mailed'))!;
    expect(mail.text).toContain(runId);
    expect(JSON.parse(at('/slack')[0]!.body).blocks).toBeDefined();
    expect(JSON.parse(at('/mattermost')[0]!.body).text).toContain('mailed');
    expect(JSON.parse(at('/teams')[0]!.body).attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
  });
});

describe('the backoff', () => {
  const settings = { baseSeconds: 30, maxSeconds: 3600 };
  it('doubles from the base up to the maximum, half of each step drawn at random', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, settings, () => 0))).toEqual([15_000, 30_000, 60_000, 120_000]);
    expect(backoffMs(1, settings, () => 0.999999)).toBeCloseTo(30_000, -1);
    expect(backoffMs(20, settings, () => 0)).toBe(1_800_000);
    expect(backoffMs(20, settings, () => 0.5)).toBe(2_700_000);
  });
});
