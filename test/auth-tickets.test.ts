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
    await daemon.services.db
      .knex('stream_tickets')
      .update({ expires_at: daemon.services.db.knex.raw("now() - interval '1 second'") })
      .whereNull('consumed_at');
    expect((await validate(ticket)).status).toBe(401);
  });

  it('number at most ten active per user: the eleventh evicts the oldest at once', async () => {
    const tickets: string[] = [];
    for (let i = 0; i < 11; i += 1) tickets.push(await newTicket());
    const active = await daemon.services.db
      .knex('stream_tickets')
      .where({ user_sub: 'sub-carol' })
      .whereNull('consumed_at')
      .count<{ count: string | number }[]>('* as count');
    expect(Number(active[0]!.count)).toBe(10);
    expect((await validate(tickets[0]!)).status).toBe(401);
    expect((await validate(tickets[1]!)).status).toBe(200);
    expect((await validate(tickets[10]!)).status).toBe(200);
  });

  it('open the stream routes and are spent by them, whatever the route answers (here: no such run)', async () => {
    const ticket = await newTicket();
    expect((await fetch(`${daemon.url}/runs/r1/monitors/stream?ticket=${ticket}`)).status).toBe(404);
    expect((await fetch(`${daemon.url}/runs/r1/monitors/stream?ticket=${ticket}`)).status).toBe(401);
  });

  it('reject garbage', async () => {
    expect((await validate('x'.repeat(500))).status).toBe(401);
    expect((await fetch(`${daemon.url}/auth/bff/validate`)).status).toBe(401);
  });

  it('count a repeated ticket parameter as no ticket: 401 invalid_ticket, not a malformed query', async () => {
    const ticket = await newTicket();
    const response = await fetch(`${daemon.url}/auth/bff/validate?ticket=${ticket}&ticket=${ticket}`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('invalid_ticket');
  });
});

describe('a stream ticket lives no longer than the credential that obtained it', () => {
  const ticketWith = async (token: string) => {
    const response = await fetch(`${daemon.url}/auth/bff/ticket`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(201);
    return ((await response.json()) as { ticket: string }).ticket;
  };
  const codeOf = async (response: Response) => ((await response.json()) as { code: string }).code;

  it('records the personal access token it was obtained with', async () => {
    await seedUser(daemon.services.db.knex, { sub: 'sub-erin', username: 'erin' }, [{ orgSlug: 'default', role: 'viewer' }]);
    const created = await daemon.services.pats.create(
      { name: 'recorded', username: 'erin', org: 'default', expiresAt: null },
      DEV_PRINCIPAL,
    );
    await ticketWith(created.token);
    const rows = await daemon.services.db.knex('stream_tickets').where({ user_sub: 'sub-erin' }).select('pat_id');
    expect(rows.map((row: { pat_id: string }) => row.pat_id)).toEqual([created.id]);
  });

  it('is refused once that token is revoked, on the validate route and on a stream route', async () => {
    await seedUser(daemon.services.db.knex, { sub: 'sub-dave', username: 'dave' }, [{ orgSlug: 'default', role: 'viewer' }]);
    const created = await daemon.services.pats.create(
      { name: 'revoked-later', username: 'dave', org: 'default', expiresAt: null },
      DEV_PRINCIPAL,
    );
    const first = await ticketWith(created.token);
    const second = await ticketWith(created.token);
    await daemon.services.pats.revoke(created.id, DEV_PRINCIPAL);
    const refused = await validate(first);
    expect(refused.status).toBe(401);
    expect(await codeOf(refused)).toBe('invalid_ticket');
    expect((await fetch(`${daemon.url}/runs/r1/monitors/stream?ticket=${second}`)).status).toBe(401);
  });

  it('is refused once that token has expired', async () => {
    await seedUser(daemon.services.db.knex, { sub: 'sub-fay', username: 'fay' }, [{ orgSlug: 'default', role: 'viewer' }]);
    const created = await daemon.services.pats.create(
      { name: 'expiring', username: 'fay', org: 'default', expiresAt: null },
      DEV_PRINCIPAL,
    );
    const ticket = await ticketWith(created.token);
    await daemon.services.db
      .knex('personal_access_tokens')
      .where({ id: created.id })
      .update({ expires_at: daemon.services.db.knex.raw("now() - interval '1 second'") });
    expect((await validate(ticket)).status).toBe(401);
  });

  it('is refused once its user is deactivated, and answers again when the user is reactivated', async () => {
    await seedUser(daemon.services.db.knex, { sub: 'sub-gus', username: 'gus' }, [{ orgSlug: 'default', role: 'viewer' }]);
    const created = await daemon.services.pats.create(
      { name: 'deactivated', username: 'gus', org: 'default', expiresAt: null },
      DEV_PRINCIPAL,
    );
    const ticket = await ticketWith(created.token);
    await daemon.services.db.knex('users').where({ sub: 'sub-gus' }).update({ is_active: false });
    expect((await validate(ticket)).status).toBe(401);
    // Refused, not spent: the same ticket is good again while it lives, once the account is.
    await daemon.services.db.knex('users').where({ sub: 'sub-gus' }).update({ is_active: true });
    expect((await validate(ticket)).status).toBe(200);
  });
});
