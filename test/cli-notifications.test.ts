import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, type SvcRun } from './helpers/cli.js';
import { createDestination, startHttpReceiver, type HttpReceiver } from './helpers/notifications-fixtures.js';
import { BARE, seedFlow, startWorld, type World } from './helpers/webhooks-fixtures.js';

/** `svc notifications destinations list|test` and `svc flows subscribe` as built, against a real daemon and receiver. */
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

function svc(who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], { configHome, env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') } });
}

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
  });
});
