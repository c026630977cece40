import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../src/daemon/daemon.js';
import { z } from 'zod';
import { route } from '../src/daemon/http/route.js';
import type { DomainRoutes } from '../src/daemon/http/types.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

let daemon: TestDaemon;

/** A handler (on a catalogue route) that waits, so two requests overlap, then writes an audit entry. */
function probeRoutes({ audit }: Services): DomainRoutes {
  return {
    'GET /platform-sync/profiles/{profile_id}': route({
      responses: { 200: { description: 'The audit entry written', schema: z.object({ id: z.string() }) } },
      async handle(ctx) {
        const context = ctx.state.audit!;
        context.subject = `sub-${ctx.state.params.profile_id}`;
        context.username = `user-${ctx.state.params.profile_id}`;
        await new Promise((resolve) => setTimeout(resolve, Number(ctx.query.wait)));
        const id = await audit.record(ctx.state.audit, {
          eventType: 'probe',
          resourceType: 'schedule',
          resourceId: ctx.state.params.profile_id!,
          outcome: 'success',
        });
        ctx.body = { id };
      },
    }),
  };
}

beforeAll(async () => {
  daemon = await startTestDaemon(
    { SERVICE_TRUST_PROXY_HEADERS: 'true', SERVICE_AUTH_DISABLED: 'true' },
    { replaceRoutes: (services) => [probeRoutes(services)] },
  );
});
afterAll(() => daemon?.close());

describe('the request-scoped audit context', () => {
  it('keeps two concurrent requests apart and stamps each entry from its own request', async () => {
    const call = (run: string, wait: number, ip: string, agent: string) =>
      fetch(`${daemon.url}/platform-sync/profiles/${run}?wait=${wait}`, {
        headers: { 'user-agent': agent, 'x-forwarded-for': `${ip}, 10.0.0.1` },
      }).then(async (r) => ({ requestId: r.headers.get('x-request-id')!, id: ((await r.json()) as { id: string }).id }));
    // The first starts first and finishes last, so each writes while the other is in flight.
    const [a, b] = await Promise.all([call('a', 300, '192.0.2.1', 'agent-a'), call('b', 50, '198.51.100.7', 'agent-b')]);

    const rows = await daemon.services.db.knex('audit_logs').whereIn('id', [a.id, b.id]).select();
    const byResource = Object.fromEntries(rows.map((r) => [r.resource_id, r]));
    expect(byResource.a).toMatchObject({ actor_sub: 'sub-a', actor_username: 'user-a', client_ip: '192.0.2.1', user_agent: 'agent-a' });
    expect(byResource.a.details_json).toMatchObject({ request_id: a.requestId, route: 'GET /platform-sync/profiles/{profile_id}' });
    expect(byResource.b).toMatchObject({ actor_sub: 'sub-b', actor_username: 'user-b', client_ip: '198.51.100.7', user_agent: 'agent-b' });
    expect(byResource.b.details_json).toMatchObject({ request_id: b.requestId, route: 'GET /platform-sync/profiles/{profile_id}' });
  });
});
