import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, type SvcRun } from './helpers/cli.js';
import { createDestination, startHttpReceiver, type HttpReceiver } from './helpers/notifications-fixtures.js';
import { BARE, seedFlow, startWorld, type World } from './helpers/webhooks-fixtures.js';

/** `svc notifications destinations list|test|create|update|delete` and `svc flows subscribe` as built, against a real daemon and receiver. */
let w: World;
let receiver: HttpReceiver;
let configHome: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  w = await startWorld({ SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8', SERVICE_NOTIFICATION_SENDER_ENABLED: 'false' });
  receiver = await startHttpReceiver();
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-notifications-'));
  ids.flow = await seedFlow(w.knex(), w.ids.acme!, { name: 'deploy', versions: [BARE] });
  ids.hook = (await createDestination(w, { name: 'hook', kind: 'webhook', config: { url: `${receiver.url}/cli` } })).id;
  ids.refusing = (await createDestination(w, { name: 'refusing', kind: 'webhook', config: { url: `${receiver.url}/refusing` } })).id;
});
afterAll(async () => {
  await w?.close();
  await receiver?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

function svc(who: string, args: string[], stdin?: string): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], {
    configHome,
    env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') },
    ...(stdin === undefined ? {} : { stdin }),
  });
}

const destinationRow = (name: string) => w.knex()('notification_destinations').where({ org_id: w.ids.acme, name }).first();

describe('svc notifications destinations', () => {
  it('lists destinations as a table and as JSON', async () => {
    const table = await svc('carol', ['notifications', 'destinations', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('hook');
    const json = await svc('carol', ['notifications', 'destinations', 'list', '--kind', 'webhook', '--json']);
    expect(JSON.parse(json.stdout).items.map((d: { name: string }) => d.name)).toEqual(['hook', 'refusing']);
  });

  it('sends a test message, exiting 1 when it was not delivered', async () => {
    const sent = await svc('alice', ['notifications', 'destinations', 'test', ids.hook!, '--json', '--message', 'from the cli']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ delivered: true, status_code: 200 });
    expect(JSON.parse(receiver.received.find((r) => r.path === '/cli')!.body).message).toBe('from the cli');
    receiver.script('/refusing', [410]);
    const refused = await svc('alice', ['notifications', 'destinations', 'test', ids.refusing!]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('410');
  });
});

describe('svc flows subscribe', () => {
  it('subscribes a flow by name to a destination, for the events given', async () => {
    const made = await svc('dave', [
      'flows',
      'subscribe',
      'deploy',
      ids.hook!,
      '--event',
      'run.failed',
      '--event',
      'approval.requested',
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({
      flow_id: ids.flow,
      destination_id: ids.hook,
      events: ['run.failed', 'approval.requested'],
    });
    const again = await svc('dave', ['flows', 'subscribe', 'deploy', ids.hook!]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('code: conflict');
    const bad = await svc('dave', ['flows', 'subscribe', 'deploy', ids.hook!, '--event', 'run.exploded']);
    expect(bad.code).toBe(2);
    const byName = await svc('dave', ['flows', 'subscribe', 'deploy', 'refusing', '--json']);
    expect(byName.code, byName.stderr).toBe(0);
    expect(JSON.parse(byName.stdout)).toMatchObject({ destination_id: ids.refusing, events: ['run.succeeded', 'run.failed'] });
  });
});

describe('svc notifications destinations create, update and delete', () => {
  it('creates a destination from inline JSON, a file or stdin; bad settings are 422 and create nothing', async () => {
    const inline = await svc('alice', [
      ...['notifications', 'destinations', 'create', 'pager', '--kind', 'webhook'],
      ...['--config', JSON.stringify({ url: `${receiver.url}/pager` }), '--event', 'run.failed', '--description', 'on call'],
    ]);
    expect(inline.code, inline.stderr).toBe(0);
    const pager = await destinationRow('pager');
    expect(inline.stdout).toBe(`${pager.id}\n`);
    expect(pager).toMatchObject({ kind: 'webhook', enabled: true, default_events: ['run.failed'], description: 'on call' });
    expect(pager.config_json).toEqual({ url: `${receiver.url}/pager` });

    const file = join(configHome, 'mail.json');
    await writeFile(file, JSON.stringify({ smtp_host: '127.0.0.1', from: 'svc@example.com', to: ['ops@example.com'] }));
    const fromFile = await svc('alice', [
      'notifications',
      'destinations',
      'create',
      'mail',
      '--kind',
      'email',
      '--config',
      `@${file}`,
      '--disabled',
    ]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(await destinationRow('mail')).toMatchObject({ kind: 'email', enabled: false });
    const fromStdin = await svc(
      'alice',
      ['notifications', 'destinations', 'create', 'stdin-hook', '--kind', 'webhook', '--config', '-', '--json'],
      JSON.stringify({ url: `${receiver.url}/stdin` }),
    );
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ name: 'stdin-hook', kind: 'webhook' });

    const invalid = await svc('alice', ['notifications', 'destinations', 'create', 'broken', '--kind', 'webhook', '--config', '{}']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('code: validation_failed');
    expect((await svc('alice', ['notifications', 'destinations', 'create', 'broken', '--kind', 'webhook', '--config', 'url='])).code).toBe(
      2,
    );
    expect((await svc('alice', ['notifications', 'destinations', 'create', 'broken', '--kind', 'webhook'])).code).toBe(2);
    // A file that cannot be read is a usage error, as --params-json @FILE's, not an error of the command.
    const unreadable = await svc('alice', [
      'notifications',
      'destinations',
      'create',
      'broken',
      '--kind',
      'webhook',
      '--config',
      '@/nonexistent/config.json',
    ]);
    expect(unreadable.code).toBe(2);
    expect(await destinationRow('broken')).toBeUndefined();
    const viewer = await svc('carol', [
      'notifications',
      'destinations',
      'create',
      'broken',
      '--kind',
      'webhook',
      '--config',
      '{"url":"http://127.0.0.1/"}',
    ]);
    expect(viewer.code).toBe(5);
    expect(await destinationRow('broken')).toBeUndefined();
  });

  it('changes a destination by name: switch, flow defaults, a cleared description; nothing to change is exit 2', async () => {
    const changed = await svc('alice', [
      'notifications',
      'destinations',
      'update',
      'pager',
      '--disable',
      '--clear-events',
      '--description',
      '',
    ]);
    expect(changed.code, changed.stderr).toBe(0);
    expect(await destinationRow('pager')).toMatchObject({ enabled: false, default_events: [], description: null });
    const renamed = await svc('alice', ['notifications', 'destinations', 'update', 'pager', '--name', 'pager-2', '--enable', '--json']);
    expect(JSON.parse(renamed.stdout)).toMatchObject({ name: 'pager-2', enabled: true });
    expect((await svc('alice', ['notifications', 'destinations', 'update', 'pager-2'])).code).toBe(2);
    expect((await svc('alice', ['notifications', 'destinations', 'update', 'pager-2', '--enable', '--disable'])).code).toBe(2);
    expect((await svc('alice', ['notifications', 'destinations', 'update', 'no-such-destination', '--enable'])).code).toBe(3);
  });

  it('tests a destination by name, and deletes one (soft, --yes)', async () => {
    const sent = await svc('alice', ['notifications', 'destinations', 'test', 'hook', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    const deleted = await svc('alice', ['notifications', 'destinations', 'delete', 'pager-2', '--yes', '--json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    const row = await destinationRow('pager-2');
    expect(JSON.parse(deleted.stdout)).toEqual({ id: row.id, deleted: true });
    expect(row.deleted_at).not.toBeNull();
  });
});
