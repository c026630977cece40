import type { Knex } from 'knex';
import type { DevIdp } from '../../src/daemon/dev-idp/index.js';
import { appendDaemonEvent } from '../../src/daemon/domains/runs/run-event-log.js';
import { BARE, seedFlow } from './runs-fixtures.js';
import { seedOrg, seedUser } from './seed.js';

/** Organizations acme and globex, a viewer and an operator of acme, an admin of globex, a flow in each. */
export interface EventsWorld {
  readonly as: Record<'opal' | 'vic' | 'gus', string>;
  readonly flows: { readonly acme: string; readonly globex: string };
}

export async function seedEventsWorld(knex: Knex, idp: DevIdp): Promise<EventsWorld> {
  const acme = await seedOrg(knex, 'acme');
  const globex = await seedOrg(knex, 'globex');
  await seedUser(knex, { sub: 'sub-opal', username: 'opal' }, [{ orgSlug: 'acme', role: 'operator' }]);
  await seedUser(knex, { sub: 'sub-vic', username: 'vic' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  await seedUser(knex, { sub: 'sub-gus', username: 'gus' }, [{ orgSlug: 'globex', role: 'admin' }]);
  const bearer = async (who: string) =>
    `Bearer ${await idp.mintAccessToken({ sub: `sub-${who}`, username: who, realmRoles: [], expiresInSeconds: 3600 })}`;
  return {
    as: { opal: await bearer('opal'), vic: await bearer('vic'), gus: await bearer('gus') },
    flows: {
      acme: await seedFlow(knex, acme, { name: 'alpha', versions: [BARE] }),
      globex: await seedFlow(knex, globex, { name: 'theirs', versions: [BARE] }),
    },
  };
}

/** A run admitted through `POST /runs` (queued), as the operator of the organization. */
export async function admitRun(url: string, authorization: string, org: string, flowId: string): Promise<string> {
  const response = await fetch(`${url}/runs`, {
    method: 'POST',
    headers: { authorization, 'x-org-id': org, 'content-type': 'application/json' },
    body: JSON.stringify({ flow_id: flowId }),
  });
  if (response.status !== 201) throw new Error(`POST /runs answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

/** Appends `count` log events through the daemon's own append (sequence from runs.event_seq, NOTIFY on commit). */
export async function appendLogs(knex: Knex, runId: string, count: number, extra: Record<string, unknown> = {}): Promise<number[]> {
  const seqs: number[] = [];
  for (let i = 0; i < count; i += 1) {
    seqs.push(await appendDaemonEvent(knex, runId, { type: 'log', data: { level: 'info', message: `line ${i}`, ...extra } }));
  }
  return seqs;
}

/** Moves the run to a terminal status in SQL, with its `run.status` event, in one transaction. */
export async function finishRun(knex: Knex, runId: string, status: 'succeeded' | 'failed' | 'cancelled'): Promise<number> {
  return knex.transaction(async (trx) => {
    const run = (await trx('runs').where({ id: runId }).first('status')) as { status: string };
    await trx('runs').where({ id: runId }).update({ status, finished_at: trx.fn.now() });
    return appendDaemonEvent(trx, runId, { type: 'run.status', data: { from: run.status, to: status } });
  });
}

/** The run's recorded event sequence numbers, oldest first. */
export async function recordedSeqs(knex: Knex, runId: string): Promise<number[]> {
  const rows = (await knex('run_events').where({ run_id: runId }).orderBy('seq').select('seq')) as { seq: string | number }[];
  return rows.map((row) => Number(row.seq));
}

/** A single-use stream ticket for the bearer. */
export async function newTicket(url: string, authorization: string): Promise<string> {
  const response = await fetch(`${url}/auth/bff/ticket`, { method: 'POST', headers: { authorization } });
  if (response.status !== 201) throw new Error(`POST /auth/bff/ticket answered ${response.status}`);
  return ((await response.json()) as { ticket: string }).ticket;
}

export function streamUrl(url: string, runId: string, query: Record<string, string | number>): string {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  return `${url}/bff/runs/${runId}/events/stream?${search.toString()}`;
}
