import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InternalDestination } from '../src/shared/api/notifications.js';
import { verifySignature } from '../src/shared/webhooks/signing.js';
import { SILENT_LOG } from '../src/worker/log.js';
import { DEFAULT_OUTBOUND, stepOutbound, type StepOutbound } from '../src/worker/outbound.js';
import { RunControl } from '../src/worker/run-control.js';
import { executeRun } from '../src/worker/run-executor.js';
import { startHttpReceiver, startSmtpSink, type HttpReceiver, type SmtpSink } from './helpers/notifications-fixtures.js';
import { assignmentOf, RecordingCallbacks } from './helpers/worker-fakes.js';

/**
 * `flow.notify` under the executor: the destination comes from the daemon's answer (a recording fake of
 * `GET /internal/notification-destinations/{id}`), the message goes to real receivers on 127.0.0.1
 * through the worker's outbound guard.
 */

const SIGNING_KEY = 'flow-notify-signing-key';
const ORG = '00000000-0000-4000-8000-0000000000aa';

let receiver: HttpReceiver;
let smtp: SmtpSink;
let loopback: StepOutbound;

beforeAll(async () => {
  receiver = await startHttpReceiver();
  smtp = await startSmtpSink();
  loopback = stepOutbound({ outboundAllowedNetworks: ['127.0.0.0/8'], outboundTimeoutMs: 5_000 });
});

afterAll(async () => {
  loopback?.close();
  await receiver?.close();
  await smtp?.close();
});

function webhook(id: string, path: string, extra: Partial<InternalDestination> = {}): InternalDestination {
  return {
    id,
    org_id: ORG,
    name: `hook ${id}`,
    kind: 'webhook',
    enabled: true,
    config: { url: `${receiver.url}${path}`, signing_secret_ref: "{{ secret('hook-key') }}" },
    credentials: { signing_secret_ref: SIGNING_KEY },
    ...extra,
  };
}

async function notify(
  config: Record<string, unknown>,
  destinations: readonly InternalDestination[],
  options: { outbound?: StepOutbound; params?: Record<string, unknown> } = {},
) {
  const callbacks = new RecordingCallbacks();
  for (const destination of destinations) callbacks.destinations.set(destination.id, destination);
  const outcome = await executeRun({
    assignment: assignmentOf(
      {
        steps: [
          { id: 'prepare', handler: 'general.noop', config: { outputs: { version: '1.2.3' } } },
          { id: 'tell', handler: 'flow.notify', config },
        ],
        edges: [{ from: 'prepare', to: 'tell' }],
      },
      options.params ? { params: options.params } : {},
    ),
    callbacks,
    control: new RunControl(),
    draining: () => false,
    log: SILENT_LOG,
    ...(options.outbound === undefined ? { outbound: loopback } : { outbound: options.outbound }),
  });
  const finished = callbacks.of('finishRun')[0]!.body;
  const tell = callbacks.of('patchStepRun').at(-1)!.body;
  return { outcome, finished, tell, callbacks };
}

const at = (path: string) => receiver.received.filter((got) => got.path === path);

describe('flow.notify', () => {
  it('sends one signed message with the rendered title and message and the run and step key', async () => {
    const { finished, tell } = await notify(
      { destination_id: 'd-signed', title: 'Deployed {{ inputs.site }}', message: 'version {{ steps.prepare.outputs.version }}' },
      [webhook('d-signed', '/signed')],
      { params: { site: 'paris' } },
    );
    expect(finished.status).toBe('succeeded');
    expect(tell).toMatchObject({
      status: 'succeeded',
      outputs: { delivered: true, destination_id: 'd-signed', status_code: 200, attempts: 1 },
    });
    const [got, ...more] = at('/signed');
    expect(more).toEqual([]);
    const check = verifySignature({
      key: SIGNING_KEY,
      timestampHeader: got!.headers['x-service-timestamp'],
      signatureHeader: got!.headers['x-service-signature'],
      rawBody: Buffer.from(got!.body, 'utf8'),
      nowSeconds: Math.floor(Date.now() / 1000),
      replayWindowSeconds: 300,
    });
    expect(check).toEqual({ ok: true });
    const body = JSON.parse(got!.body) as Record<string, unknown>;
    const key = `flow-notify.${assignmentOf({}).run_id}.tell`;
    expect(got!.headers['x-idempotency-key']).toBe(key);
    expect(body).toMatchObject({
      event: 'flow.notify',
      step_id: 'tell',
      title: 'Deployed paris',
      message: 'version 1.2.3',
      idempotency_key: key,
    });
    expect((body.run as { id: string }).id).toBe(assignmentOf({}).run_id);
  });

  it('uses the shared default words when title and message are empty', async () => {
    const { tell } = await notify({ destination_id: 'd-default', title: '', message: '' }, [webhook('d-default', '/default')]);
    expect(tell.status).toBe('succeeded');
    const body = JSON.parse(at('/default')[0]!.body) as Record<string, unknown>;
    expect(body).not.toHaveProperty('message');
    expect(body.title).toBe('Run "test run" of flow "test flow" has a message');
  });

  it('fails the step coded for a destination the daemon does not know, sending nothing', async () => {
    const before = receiver.received.length;
    const { finished, tell } = await notify({ destination_id: 'd-unknown' }, []);
    expect(tell).toMatchObject({ status: 'failed', error: { code: 'notification_destination_not_found', status: 404 } });
    expect(finished).toMatchObject({ status: 'failed', error: { code: 'notification_destination_not_found', step_id: 'tell' } });
    expect(receiver.received.length).toBe(before);
  });

  it('fails coded for a disabled destination and for a missing destination_id', async () => {
    const disabled = await notify({ destination_id: 'd-off' }, [webhook('d-off', '/off', { enabled: false })]);
    expect(disabled.tell).toMatchObject({ status: 'failed', error: { code: 'notification_destination_disabled' } });
    expect(at('/off')).toEqual([]);
    const missing = await notify({ title: 'x' }, []);
    expect(missing.tell).toMatchObject({ status: 'failed', error: { code: 'invalid_config', field: 'destination_id' } });
    expect(missing.callbacks.of('notificationDestination')).toEqual([]);
  });

  it('gives up at once on a refusal (4xx) and fails the step with the receiver status', async () => {
    receiver.script('/refuses', [400]);
    const { tell } = await notify({ destination_id: 'd-refuses' }, [webhook('d-refuses', '/refuses')]);
    expect(tell).toMatchObject({
      status: 'failed',
      error: { code: 'notification_not_delivered', outcome: 'permanent', status_code: 400, reason: 'http_status', attempts: 1 },
    });
    expect(at('/refuses')).toHaveLength(1);
  });

  it('tries a transient failure again with the same key', async () => {
    receiver.script('/flaky', [503]);
    const { tell } = await notify({ destination_id: 'd-flaky' }, [webhook('d-flaky', '/flaky')]);
    expect(tell).toMatchObject({ status: 'succeeded', outputs: { attempts: 2, status_code: 200 } });
    const keys = at('/flaky').map((got) => got.headers['x-idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1);
  });

  it('reaches no loopback receiver without the allow-list (the daemon defaults)', async () => {
    const guarded = stepOutbound(DEFAULT_OUTBOUND);
    try {
      const { tell } = await notify({ destination_id: 'd-guarded' }, [webhook('d-guarded', '/guarded')], { outbound: guarded });
      expect(tell).toMatchObject({ status: 'failed', error: { code: 'notification_not_delivered', reason: 'address_not_allowed' } });
      expect(at('/guarded')).toEqual([]);
    } finally {
      guarded.close();
    }
  });

  it('sends e-mail through SMTP', async () => {
    const mail: InternalDestination = {
      id: 'd-mail',
      org_id: ORG,
      name: 'mail',
      kind: 'email',
      enabled: true,
      config: { smtp_host: '127.0.0.1', smtp_port: smtp.port, smtp_security: 'none', from: 'svc@example.test', to: ['ops@example.test'] },
      credentials: {},
    };
    const { tell } = await notify({ destination_id: 'd-mail', title: 'Mail from {{ run.name }}', message: 'hello' }, [mail]);
    expect(tell).toMatchObject({ status: 'succeeded', outputs: { kind: 'email', delivered: true } });
    expect(smtp.mails.map((m) => m.subject)).toEqual(['Mail from test run']);
    expect(smtp.mails[0]!.headers.get('x-idempotency-key')).toBe(`flow-notify.${assignmentOf({}).run_id}.tell`);
  });
});
