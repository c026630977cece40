import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_PRINCIPAL } from '../src/shared/auth/principal.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedUser } from './helpers/seed.js';

let daemon: TestDaemon;
let pat: string;

beforeAll(async () => {
  daemon = await startTestDaemon({});
  await seedUser(daemon.services.db.knex, { sub: 'sub-carol', username: 'carol' }, [{ orgSlug: 'default', role: 'viewer' }]);
  pat = (await daemon.services.pats.create({ name: 'tickets', username: 'carol', org: 'default', expiresAt: null }, DEV_PRINCIPAL)).token;
});
afterAll(() => daemon?.close());

async function newTicket(): Promise<string> {
  const response = await fetch(`${daemon.url}/auth/bff/ticket`, { method: 'POST', headers: { authorization: `Bearer ${pat}` } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { ticket: string }).ticket;
}

const validate = (ticket: string) => fetch(`${daemon.url}/auth/bff/validate?ticket=${encodeURIComponent(ticket)}`);

describe('stream tickets', () => {
  it('are 256-bit URL-safe strings, valid five minutes, stored only as a digest', async () => {
    const response = await fetch(`${daemon.url}/auth/bff/ticket`, { method: 'POST', headers: { authorization: `Bearer ${pat}` } });
    const body = (await response.json()) as { ticket: string; expires_in: number };
    expect(body.ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.expires_in).toBeGreaterThan(295);
    expect(body.expires_in).toBeLessThanOrEqual(300);
    const stored = await daemon.services.db.knex('stream_tickets').select('ticket_digest');
    expect(JSON.stringify(stored)).not.toContain(body.ticket);
  });

  it('need a credential to be issued', async () => {
    expect((await fetch(`${daemon.url}/auth/bff/ticket`, { method: 'POST' })).status).toBe(401);
  });

  it('are single use', async () => {
    const ticket = await newTicket();
    const first = await validate(ticket);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { principal: { sub: string } }).principal.sub).toBe('sub-carol');
    const second = await validate(ticket);
    expect(second.status).toBe(401);
    expect(((await second.json()) as { code: string }).code).toBe('invalid_ticket');
  });

  it('are single use under 20 concurrent redemptions: exactly one succeeds', async () => {
    const ticket = await newTicket();
    const statuses = await Promise.all(Array.from({ length: 20 }, () => validate(ticket).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(19);
  });

  it('expire', async () => {
    const ticket = await newTicket();
    await daemon.services.db.knex('stream_tickets').update({ expires_at: daemon.services.db.knex.raw("now() - interval '1 second'") }).whereNull('consumed_at');
    expect((await validate(ticket)).status).toBe(401);
  });

  it('number at most ten active per user: the eleventh evicts the oldest at once', async () => {
    const tickets: string[] = [];
    for (let i = 0; i < 11; i += 1) tickets.push(await newTicket());
    const active = await daemon.services.db.knex('stream_tickets').where({ user_sub: 'sub-carol' }).whereNull('consumed_at').count<{ count: string | number }[]>('* as count');
    expect(Number(active[0]!.count)).toBe(10);
    expect((await validate(tickets[0]!)).status).toBe(401);
    expect((await validate(tickets[1]!)).status).toBe(200);
    expect((await validate(tickets[10]!)).status).toBe(200);
  });

  it('open the stream routes (which answer 501 until runs exist) and are spent by them', async () => {
    const ticket = await newTicket();
    expect((await fetch(`${daemon.url}/runs/r1/monitors/stream?ticket=${ticket}`)).status).toBe(501);
    expect((await fetch(`${daemon.url}/runs/r1/monitors/stream?ticket=${ticket}`)).status).toBe(401);
  });

  it('reject garbage', async () => {
    expect((await validate('x'.repeat(500))).status).toBe(401);
    expect((await fetch(`${daemon.url}/auth/bff/validate`)).status).toBe(401);
  });
});
