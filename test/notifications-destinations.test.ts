import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BARE, call, count, createSecret, seedFlow, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';
import { createDestination, startHttpReceiver, startSmtpSink, type HttpReceiver, type SmtpSink } from './helpers/notifications-fixtures.js';

let world: World;
let receiver: HttpReceiver;
let smtp: SmtpSink;
const ids: Record<string, string> = {};
const knex = () => world.knex();
const audits = (eventType: string, resourceType = 'notification_destination') =>
  count(knex()('audit_logs').where({ event_type: eventType, resource_type: resourceType }));
const destinations = () => count(knex()('notification_destinations'));

beforeAll(async () => {
  world = await startWorld({ SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8', SERVICE_NOTIFICATION_SENDER_ENABLED: 'false' });
  receiver = await startHttpReceiver();
  smtp = await startSmtpSink();
  await createSecret(world, 'alice', 'slack-url', `${receiver.url}/slack`);
  await createSecret(world, 'alice', 'hook-key', 'hook-signing-key');
  await createSecret(world, 'bob', 'theirs', 'globex-value', 'globex');
  ids.flow = await seedFlow(knex(), world.ids.acme!, { name: 'deploy', versions: [BARE] });
  ids.sharedFlow = await seedFlow(knex(), world.ids.commons!, { name: 'common', versions: [BARE] });
  ids.foreignFlow = await seedFlow(knex(), world.ids.globex!, { name: 'theirs', versions: [BARE] });
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
  await smtp?.close();
});

const slack = () => ({ kind: 'slack', config: { webhook_url_ref: "{{ secret('slack-url') }}" } });

describe('destination types', () => {
  it('lists the five kinds, their fields and the events (a viewer may read)', async () => {
    const answer = await call(world, 'carol', 'GET', '/notifications/destination-types');
    expect(answer.status).toBe(200);
    expect(answer.body.items.map((item: { kind: string }) => item.kind)).toEqual(['email', 'webhook', 'slack', 'mattermost', 'teams']);
    expect(answer.body.events).toContain('run.failed');
  });
});

describe('creating a destination', () => {
  it('stores each kind with its defaults, answering references only, and audits it', async () => {
    const before = await audits('entity.created');
    const email = await createDestination(world, {
      name: 'ops mail',
      kind: 'email',
      config: { smtp_host: '127.0.0.1', from: 'svc@example.test', to: ['ops@example.test'] },
    });
    expect(email.config).toEqual({
      smtp_host: '127.0.0.1',
      smtp_port: 587,
      smtp_security: 'starttls',
      from: 'svc@example.test',
      to: ['ops@example.test'],
    });
    const chat = await createDestination(world, { name: 'chat', ...slack(), default_events: ['run.failed', 'run.failed'] });
    expect(chat.config).toEqual({ webhook_url_ref: "{{ secret('slack-url') }}" });
    expect(chat.default_events).toEqual(['run.failed']);
    expect(JSON.stringify(chat)).not.toContain(receiver.url);
    for (const kind of ['mattermost', 'teams']) {
      await createDestination(world, { kind, config: { webhook_url_ref: "{{ secret('slack-url') }}" } });
    }
    await createDestination(world, {
      kind: 'webhook',
      config: { url: `${receiver.url}/hook`, signing_secret_ref: "{{ secret('hook-key') }}" },
    });
    expect(await audits('entity.created')).toBe(before + 5);
    const stored = await knex()('notification_destinations').where({ id: chat.id }).first();
    expect(JSON.stringify(stored)).not.toContain(receiver.url);
  });

  it('refuses an unknown kind with its code, storing nothing', async () => {
    const before = await destinations();
    const answer = await call(world, 'alice', 'POST', '/notifications/destinations', { name: 'x', kind: 'pager', config: {} });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('notification_kind_unknown');
    expect(answer.body.kinds).toContain('slack');
    expect(await destinations()).toBe(before);
  });

  it.each([
    [{ name: 'x', kind: 'email', config: { smtp_host: 'h', from: 'a@b.test' } }, 'config.to'],
    [{ name: 'x', kind: 'slack', config: {} }, 'config.webhook_url_ref'],
    [{ name: 'x', kind: 'webhook', config: {} }, 'config.url'],
    [{ name: 'x', kind: 'webhook', config: { url: 'ftp://example.test/' } }, 'config.url'],
    // Credentials in a plain URL would be answered to every viewer: they go in url_ref.
    [{ name: 'x', kind: 'webhook', config: { url: 'https://user:pass@example.test/hook' } }, 'config.url'],
    [{ name: 'x', kind: 'webhook', config: { url: 'https://token@example.test/hook' } }, 'config.url'],
    [{ name: 'x', kind: 'email', config: { smtp_host: 'h', from: 'a@b.test', to: ['not an address'] } }, 'config.to.0'],
    [{ name: 'x', kind: 'email', config: { smtp_host: 'h', from: 'a@b.test', to: ['c@d.test'], username: 'u' } }, 'config.password_ref'],
    [{ name: 'x', kind: 'email', config: { smtp_host: 'h', from: 'a@b.test', to: ['c@d.test'], username: ' ' } }, 'config.username'],
    [{ kind: 'slack', config: {} }, 'name'],
    [{ name: 'x', kind: 'slack', config: { webhook_url_ref: 'r', extra: 1 } }, 'config'],
  ])('refuses missing or bad fields with validation_failed (%#)', async (body, path) => {
    const before = await destinations();
    const answer = await call(world, 'alice', 'POST', '/notifications/destinations', body);
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await destinations()).toBe(before);
  });

  it.each([
    ['builtin://orgs/globex/secrets/theirs', 'other_organization'],
    ["{{ secret('nothing-here') }}", 'not_found'],
    ['plain-token-not-a-reference', 'malformed'],
  ])('refuses the secret reference %s (%s) naming the field', async (reference, reason) => {
    const before = await destinations();
    const answer = await call(world, 'alice', 'POST', '/notifications/destinations', {
      name: 'refused',
      kind: 'slack',
      config: { webhook_url_ref: reference },
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ code: 'notification_secret_reference_refused', field: 'config.webhook_url_ref', reason });
    expect(await destinations()).toBe(before);
  });

  it('refuses a live name twice (409) and a non-admin (403)', async () => {
    await createDestination(world, { name: 'unique-one', ...slack() });
    expect((await call(world, 'alice', 'POST', '/notifications/destinations', { name: 'UNIQUE-one', ...slack() })).body.code).toBe(
      'conflict',
    );
    const operator = await call(world, 'dave', 'POST', '/notifications/destinations', { name: 'by-dave', ...slack() });
    expect(operator.status).toBe(403);
  });
});

describe('reading, changing and removing', () => {
  it('lists by name with filters, and another organization sees none of them', async () => {
    const list = await call(world, 'carol', 'GET', '/notifications/destinations?kind=slack');
    expect(list.status).toBe(200);
    expect(list.body.items.every((d: { kind: string }) => d.kind === 'slack')).toBe(true);
    expect(list.body.total).toBe(list.body.items.length);
    const theirs = await call(world, 'bob', 'GET', '/notifications/destinations', undefined, 'globex');
    expect(theirs.body.total).toBe(0);
    const one = list.body.items[0];
    expect((await call(world, 'bob', 'GET', `/notifications/destinations/${one.id}`, undefined, 'globex')).status).toBe(404);
    expect((await call(world, 'carol', 'GET', `/notifications/destinations/${one.id}`)).body.id).toBe(one.id);
    expect((await call(world, 'carol', 'GET', '/notifications/destinations/not-a-uuid')).status).toBe(404);
  });

  it('changes a destination, checking a new config again; the kind stays', async () => {
    const made = await createDestination(world, slack());
    const renamed = await call(world, 'alice', 'PATCH', `/notifications/destinations/${made.id}`, { name: 'renamed', enabled: false });
    expect(renamed.body).toMatchObject({ name: 'renamed', enabled: false, kind: 'slack' });
    const foreign = await call(world, 'alice', 'PATCH', `/notifications/destinations/${made.id}`, {
      config: { webhook_url_ref: 'builtin://orgs/globex/secrets/theirs' },
    });
    expect(foreign.body).toMatchObject({ code: 'notification_secret_reference_refused', reason: 'other_organization' });
    const twice = await call(world, 'alice', 'PATCH', `/notifications/destinations/${made.id}`, {
      default_events: ['run.failed', 'run.started', 'run.failed'],
    });
    expect(twice.body.default_events).toEqual(['run.failed', 'run.started']);
    const kind = await call(world, 'alice', 'PATCH', `/notifications/destinations/${made.id}`, { kind: 'teams' });
    expect(kind.status).toBe(422);
    expect((await call(world, 'alice', 'GET', `/notifications/destinations/${made.id}`)).body.config.webhook_url_ref).toBe(
      "{{ secret('slack-url') }}",
    );
  });

  it('duplicates, soft-deletes, restores and purges, each audited', async () => {
    const made = await createDestination(world, { name: 'original', ...slack(), default_events: ['run.failed'] });
    const copy = await call(world, 'alice', 'POST', `/notifications/destinations/${made.id}/duplicate`, {});
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: 'original (copy)', kind: 'slack', default_events: ['run.failed'], config: made.config });
    expect((await call(world, 'alice', 'POST', `/notifications/destinations/${made.id}/duplicate`, {})).body.code).toBe('conflict');
    // A name of the longest length is cut to make room for the suffix, not the suffix cut off (the same name again).
    const longest = await createDestination(world, { name: `${'é'.repeat(254)}x`, ...slack() });
    const longCopy = await call(world, 'alice', 'POST', `/notifications/destinations/${longest.id}/duplicate`, {});
    expect(longCopy.status).toBe(201);
    expect(longCopy.body.name).toBe(`${'é'.repeat(248)} (copy)`);

    expect((await call(world, 'alice', 'DELETE', `/notifications/destinations/${made.id}`)).status).toBe(204);
    expect((await call(world, 'alice', 'GET', `/notifications/destinations/${made.id}`)).status).toBe(404);
    const deleted = await call(world, 'alice', 'GET', '/notifications/destinations?include_deleted=true&q=original');
    expect(deleted.body.items.find((d: { id: string }) => d.id === made.id).deleted_at).not.toBeNull();
    expect((await call(world, 'alice', 'DELETE', `/notifications/destinations/${made.id}`)).status).toBe(404);

    const restored = await call(world, 'alice', 'POST', `/notifications/destinations/${made.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.deleted_at).toBeNull();
    expect((await call(world, 'alice', 'POST', `/notifications/destinations/${made.id}/restore`)).status).toBe(404);

    expect(await audits('entity.deleted')).toBeGreaterThan(0);
    expect(await audits('entity.restored')).toBeGreaterThan(0);
    expect((await call(world, 'alice', 'DELETE', `/notifications/destinations/${made.id}/permanent`)).status).toBe(204);
    expect(await count(knex()('notification_destinations').where({ id: made.id }))).toBe(0);
    expect(await audits('entity.purged')).toBe(1);
  });

  it('refuses restoring into a name a live destination took meanwhile (409)', async () => {
    const made = await createDestination(world, { name: 'taken-later', ...slack() });
    await call(world, 'alice', 'DELETE', `/notifications/destinations/${made.id}`);
    await createDestination(world, { name: 'taken-later', ...slack() });
    const answer = await call(world, 'alice', 'POST', `/notifications/destinations/${made.id}/restore`);
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('conflict');
  });
});

describe('subscriptions and flow defaults', () => {
  it('subscribes a flow (own or shared) to a destination, once, and lists it', async () => {
    const dest = await createDestination(world, slack());
    const path = `/flows/${ids.flow}/notifications/subscriptions`;
    const created = await call(world, 'dave', 'POST', path, {
      destination_id: dest.id,
      events: ['run.failed', 'run.failed', 'run.succeeded'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      flow_id: ids.flow,
      destination_id: dest.id,
      destination_kind: 'slack',
      events: ['run.failed', 'run.succeeded'],
      enabled: true,
    });
    expect((await call(world, 'dave', 'POST', path, { destination_id: dest.id, events: ['run.failed'] })).status).toBe(409);
    const list = await call(world, 'carol', 'GET', path);
    expect(list.body.items.map((s: { id: string }) => s.id)).toEqual([created.body.id]);
    const shared = await call(world, 'dave', 'POST', `/flows/${ids.sharedFlow}/notifications/subscriptions`, {
      destination_id: dest.id,
      events: ['run.started'],
    });
    expect(shared.status).toBe(201);
    expect(await audits('entity.created', 'flow_subscription')).toBe(2);

    const changed = await call(world, 'dave', 'PATCH', `${path}/${created.body.id}`, { enabled: false });
    expect(changed.body.enabled).toBe(false);
    expect((await call(world, 'dave', 'DELETE', `${path}/${created.body.id}`)).status).toBe(204);
    expect((await call(world, 'dave', 'DELETE', `${path}/${created.body.id}`)).status).toBe(404);
  });

  it("refuses another organization's flow or destination, an empty event list, and a viewer's write", async () => {
    const dest = await createDestination(world, slack());
    const theirs = await createDestination(world, { kind: 'webhook', config: { url: `${receiver.url}/x` } }, 'bob', 'globex');
    const foreignFlow = await call(world, 'dave', 'POST', `/flows/${ids.foreignFlow}/notifications/subscriptions`, {
      destination_id: dest.id,
      events: ['run.failed'],
    });
    expect(foreignFlow.status).toBe(404);
    const foreignDest = await call(world, 'dave', 'POST', `/flows/${ids.flow}/notifications/subscriptions`, {
      destination_id: theirs.id,
      events: ['run.failed'],
    });
    expect(foreignDest.status).toBe(404);
    const empty = await call(world, 'dave', 'POST', `/flows/${ids.flow}/notifications/subscriptions`, {
      destination_id: dest.id,
      events: [],
    });
    expect(empty.body.code).toBe('validation_failed');
    const unknownEvent = await call(world, 'dave', 'POST', `/flows/${ids.flow}/notifications/subscriptions`, {
      destination_id: dest.id,
      events: ['run.exploded'],
    });
    expect(unknownEvent.body.code).toBe('validation_failed');
    const viewer = await call(world, 'carol', 'POST', `/flows/${ids.flow}/notifications/subscriptions`, {
      destination_id: dest.id,
      events: ['run.failed'],
    });
    expect(viewer.status).toBe(403);
    expect((await call(world, 'carol', 'GET', `/flows/${UNKNOWN_ID}/notifications/subscriptions`)).status).toBe(404);
  });

  it('lists the flow defaults: live destinations with default events, saying which are disabled', async () => {
    const off = await createDestination(world, { name: 'defaults-off', ...slack(), default_events: ['run.failed'], enabled: false });
    const answer = await call(world, 'carol', 'GET', '/notifications/flow-defaults');
    expect(answer.status).toBe(200);
    expect(answer.body.items.length).toBeGreaterThan(1);
    for (const item of answer.body.items) expect(item.events.length).toBeGreaterThan(0);
    const listed = answer.body.items.find((item: { destination_id: string }) => item.destination_id === off.id);
    expect(listed).toMatchObject({ events: ['run.failed'], enabled: false });
    expect(answer.body.items.some((item: { enabled: boolean }) => item.enabled)).toBe(true);
  });
});

describe('test sends', () => {
  it('sends a real signed webhook message and reports the answer', async () => {
    const dest = await createDestination(world, {
      kind: 'webhook',
      config: { url: `${receiver.url}/tested`, signing_secret_ref: "{{ secret('hook-key') }}" },
    });
    const answer = await call(world, 'alice', 'POST', `/notifications/destinations/${dest.id}/test`, { message: 'hello' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ delivered: true, outcome: 'delivered', status_code: 200 });
    const got = receiver.received.find((r) => r.path === '/tested')!;
    expect(got.headers['x-idempotency-key']).toBe(answer.body.idempotency_key);
    expect(JSON.parse(got.body)).toMatchObject({ event: 'notification.test', message: 'hello' });
    expect(await audits('notification_destination.tested')).toBeGreaterThan(0);
  });

  it("reports a receiver's refusal as it is", async () => {
    receiver.script('/refusing', [404]);
    const answer = await call(world, 'alice', 'POST', '/notifications/destinations/test-config', {
      name: 'n',
      kind: 'webhook',
      config: { url: `${receiver.url}/refusing` },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ delivered: false, outcome: 'permanent', status_code: 404, reason: 'http_status' });
  });

  it('sends e-mail to an SMTP sink (test-config), with the idempotency key, and reports an SMTP 5xx as permanent', async () => {
    const config = {
      smtp_host: '127.0.0.1',
      smtp_port: smtp.port,
      smtp_security: 'none',
      from: 'svc@example.test',
      to: ['ops@example.test'],
    };
    const answer = await call(world, 'alice', 'POST', '/notifications/destinations/test-config', { name: 'm', kind: 'email', config });
    expect(answer.body).toMatchObject({ delivered: true, outcome: 'delivered' });
    const mail = smtp.mails.at(-1)!;
    expect(mail.subject).toBe('Test notification');
    expect(mail.headers.get('x-idempotency-key')).toBe(answer.body.idempotency_key);
    smtp.script([550]);
    const refused = await call(world, 'alice', 'POST', '/notifications/destinations/test-config', { name: 'm', kind: 'email', config });
    expect(refused.body).toMatchObject({ delivered: false, outcome: 'permanent', status_code: 550, reason: 'smtp_reply' });
    smtp.script([451]);
    const later = await call(world, 'alice', 'POST', '/notifications/destinations/test-config', { name: 'm', kind: 'email', config });
    expect(later.body).toMatchObject({ delivered: false, outcome: 'transient', status_code: 451 });
  });

  it.each([
    ['webhook', { url: 'http://10.255.255.1/hook' }],
    ['webhook', { url: 'http://169.254.169.254/latest/meta-data' }],
    ['email', { smtp_host: '192.168.0.1', smtp_security: 'none', from: 'svc@example.test', to: ['ops@example.test'] }],
  ])('refuses a %s target outside the allowed networks before connecting (%#)', async (kind, config) => {
    const answer = await call(world, 'alice', 'POST', '/notifications/destinations/test-config', { name: 'n', kind, config });
    expect(answer.body).toMatchObject({ delivered: false, outcome: 'permanent', status_code: null, reason: 'address_not_allowed' });
  });

  it('test-config refuses what a create refuses, sending nothing', async () => {
    const before = receiver.received.length;
    const answer = await call(world, 'alice', 'POST', '/notifications/destinations/test-config', {
      name: 'n',
      kind: 'slack',
      config: { webhook_url_ref: 'builtin://orgs/globex/secrets/theirs' },
    });
    expect(answer.body.code).toBe('notification_secret_reference_refused');
    expect(receiver.received.length).toBe(before);
  });
});
