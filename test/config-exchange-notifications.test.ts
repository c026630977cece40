import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { exported, install, planAndApply, type Installation } from './helpers/config-exchange-installations.js';

/**
 * The notification families between two installations: destinations by name with secret references only,
 * and flow subscriptions keyed `<flow>/<destination>`, applied after the flows and destinations they name.
 */

const FAMILIES = ['flows', 'notification_destinations', 'notification_subscriptions'];
let one: Installation;
let two: Installation;

beforeAll(async () => {
  [one, two] = await Promise.all([install(), install()]);
  const knex = one.daemon.services.db.knex;
  const [deploy] = await knex('flows')
    .insert({ org_id: one.acme.id, name: 'deploy', draft_json: JSON.stringify({ steps: [] }) })
    .returning('id');
  const [chat, mail] = await knex('notification_destinations')
    .insert([
      {
        org_id: one.acme.id,
        name: 'chat',
        kind: 'slack',
        config_json: JSON.stringify({ webhook_url_ref: "{{ secret('slack-url') }}", channel: '#ops' }),
        default_events: JSON.stringify(['run.failed']),
      },
      {
        org_id: one.acme.id,
        name: 'mail',
        description: 'On-call',
        kind: 'email',
        enabled: false,
        config_json: JSON.stringify({
          smtp_host: 'smtp.example.com',
          smtp_port: 587,
          smtp_security: 'starttls',
          from: 'svc@example.com',
          to: ['ops@example.com'],
        }),
      },
      {
        org_id: one.acme.id,
        name: 'gone',
        kind: 'teams',
        config_json: JSON.stringify({ webhook_url_ref: "{{ secret('t') }}" }),
        deleted_at: knex.fn.now(),
      },
    ])
    .returning('id');
  await knex('flow_notification_subscriptions').insert([
    { org_id: one.acme.id, flow_id: deploy.id, destination_id: chat.id, events: JSON.stringify(['run.started', 'run.succeeded']) },
    { org_id: one.acme.id, flow_id: deploy.id, destination_id: mail.id, events: JSON.stringify(['run.failed']), enabled: false },
  ]);
});
afterAll(async () => {
  await Promise.all([one?.daemon.close(), two?.daemon.close()]);
});

describe('configuration exchange: notification destinations and subscriptions', () => {
  it('round-trips live destinations and their subscriptions to an empty installation, audited', async () => {
    const yaml = await exported(one, FAMILIES);
    expect(yaml).not.toContain('gone');
    const { plan } = await planAndApply(two, yaml, { families: FAMILIES });
    expect(plan.changes.map((c) => [c.family, c.key, c.action])).toEqual([
      ['flows', 'deploy', 'create'],
      ['notification_destinations', 'chat', 'create'],
      ['notification_destinations', 'mail', 'create'],
      ['notification_subscriptions', 'deploy/chat', 'create'],
      ['notification_subscriptions', 'deploy/mail', 'create'],
    ]);
    expect(await exported(two, FAMILIES)).toBe(yaml);
    const audit = await two.daemon.services.db
      .knex('audit_logs')
      .whereRaw(`details_json->>'correlation_id' = ?`, [plan.plan_id])
      .whereIn('resource_type', ['notification_destination', 'flow_subscription']);
    expect(audit.map((a) => [a.resource_type, a.event_type]).sort()).toEqual([
      ['flow_subscription', 'entity.created'],
      ['flow_subscription', 'entity.created'],
      ['notification_destination', 'entity.created'],
      ['notification_destination', 'entity.created'],
    ]);
  });

  it('plans exactly the edits, applies them, and prunes a subscription before its destination', async () => {
    const document = parse(await exported(two, FAMILIES)) as {
      notification_destinations: { name: string; default_events: string[]; config: Record<string, unknown> }[];
      notification_subscriptions: { flow: string; destination: string; events: string[] }[];
    };
    document.notification_destinations[0]!.default_events = ['run.failed', 'run.cancelled'];
    document.notification_destinations = document.notification_destinations.filter((d) => d.name !== 'mail');
    document.notification_subscriptions = document.notification_subscriptions.filter((s) => s.destination !== 'mail');
    document.notification_subscriptions[0]!.events = ['run.succeeded'];
    const families = ['notification_destinations', 'notification_subscriptions'];
    const { plan } = await planAndApply(two, stringify(document), { families, prune: true });
    expect(plan.changes.map((c) => [c.family, c.key, c.action, c.diffs])).toEqual([
      [
        'notification_destinations',
        'chat',
        'update',
        [{ path: 'default_events', before: ['run.failed'], after: ['run.failed', 'run.cancelled'] }],
      ],
      [
        'notification_subscriptions',
        'deploy/chat',
        'update',
        [{ path: 'events', before: ['run.started', 'run.succeeded'], after: ['run.succeeded'] }],
      ],
      ['notification_subscriptions', 'deploy/mail', 'delete', expect.anything()],
      ['notification_destinations', 'mail', 'delete', expect.anything()],
    ]);
    const knex = two.daemon.services.db.knex;
    expect(await knex('notification_destinations').where({ name: 'mail' }).whereNotNull('deleted_at')).toHaveLength(1);
    expect(await knex('flow_notification_subscriptions').where({ org_id: two.acme.id })).toHaveLength(1);
  });

  it('refuses a config its kind does not take and a subscription naming an unknown destination', async () => {
    const badConfig = `version: 1\norg: acme\nnotification_destinations:\n  - name: hook\n    kind: webhook\n    config: {}\n`;
    await expect(planAndApply(two, badConfig, { families: ['notification_destinations'] })).rejects.toMatchObject({
      code: 'bundle_invalid',
    });
    const unknown = `version: 1\norg: acme\nnotification_subscriptions:\n  - flow: deploy\n    destination: nowhere\n    events: [run.failed]\n`;
    await expect(planAndApply(two, unknown, { families: ['notification_subscriptions'] })).rejects.toMatchObject({
      code: 'bundle_reference_unresolved',
    });
  });

  it('refuses destination names that differ only by case: 422 in one bundle, 409 name_taken against a live one', async () => {
    const hook = (name: string, url: string) => `  - name: ${name}\n    kind: webhook\n    config: {url: "${url}"}\n`;
    const twice = `version: 1\norg: acme\nnotification_destinations:\n${hook('Ops', 'https://hooks.example.com/a')}${hook('ops', 'https://hooks.example.com/b')}`;
    expect(() => two.engine.parse(twice)).toThrow(
      expect.objectContaining({
        code: 'bundle_invalid',
        extensions: { errors: [expect.objectContaining({ path: 'notification_destinations[1].name' })] },
      }),
    );
    const knex = two.daemon.services.db.knex;
    await planAndApply(two, `version: 1\norg: acme\nnotification_destinations:\n${hook('Pager', 'https://hooks.example.com/p')}`);
    const cased = `version: 1\norg: acme\nnotification_destinations:\n${hook('pager', 'https://hooks.example.com/q')}`;
    await expect(planAndApply(two, cased)).rejects.toMatchObject({
      code: 'bundle_item_refused',
      extensions: expect.objectContaining({ reason: 'name_taken', key: 'pager' }),
    });
    expect(await knex('notification_destinations').where({ org_id: two.acme.id }).whereRaw("lower(name) = 'pager'")).toHaveLength(1);
  });
});
