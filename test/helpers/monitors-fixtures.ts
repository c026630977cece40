import { callback, json, type CallbacksWorld, type CallOptions } from './callbacks-fixtures.js';
import { BARE, seedFlow } from './runs-fixtures.js';
import { seedOrg, seedUser } from './seed.js';

export interface MonitorAnswer {
  readonly id: string;
  readonly run_id: string;
  readonly monitor_key: string;
  readonly status: 'open' | 'closed';
  readonly sample_count: number;
  readonly last_seq: number | null;
  readonly last_sample: { seq: number; value: number | null } | null;
  readonly [key: string]: unknown;
}

/** Opens a monitor of the run as its holder `w1` (attempt 1) would: answers it. */
export async function openMonitor(world: CallbacksWorld, runId: string, key = 'ping', extra: object = {}): Promise<MonitorAnswer> {
  const response = await callback(world, 'POST', '/api/v1/monitors', {
    body: { run_id: runId, monitor_key: key, kind: 'connectivity.tcp_connect', target: '10.0.0.1:22', unit: 'ms', ...extra },
  });
  return json<MonitorAnswer>(response, 201);
}

/** `count` samples of the monitor from seq `from`, values seq * 10, a second apart from `start`. */
export function samplesOf(monitorId: string, from: number, count: number, start = Date.parse('2026-11-26T10:00:00.000Z')) {
  return Array.from({ length: count }, (_, i) => ({
    monitor_id: monitorId,
    seq: from + i,
    ts: new Date(start + (from + i) * 1000).toISOString(),
    value: (from + i) * 10,
    status: 'ok',
    data: { rtt_ms: from + i },
  }));
}

export function postSamples(world: CallbacksWorld, samples: unknown, options: CallOptions = {}): Promise<Response> {
  return callback(world, 'POST', '/api/v1/monitor-samples/batch', { body: { samples }, ...options });
}

/** Every stored seq of the monitor, in order. */
export async function storedSeqs(world: CallbacksWorld, monitorId: string): Promise<number[]> {
  const rows = (await world.knex('monitor_samples').where({ monitor_id: monitorId }).orderBy('seq').select('seq')) as { seq: string }[];
  return rows.map((row) => Number(row.seq));
}

/** Readers of acme's monitors (viewer `vic`, admin `ada`) and an admin of another organization (`gus` of globex, with its own flow). */
export interface MonitorReaders {
  readonly vic: string;
  readonly ada: string;
  readonly gus: string;
  readonly globexFlow: string;
}

export async function seedMonitorReaders(world: CallbacksWorld): Promise<MonitorReaders> {
  const globex = await seedOrg(world.knex, 'globex');
  await seedUser(world.knex, { sub: 'sub-vic', username: 'vic' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  await seedUser(world.knex, { sub: 'sub-ada', username: 'ada' }, [{ orgSlug: 'acme', role: 'admin' }]);
  await seedUser(world.knex, { sub: 'sub-gus', username: 'gus' }, [{ orgSlug: 'globex', role: 'admin' }]);
  const bearer = async (who: string) => `Bearer ${await world.idp.mintAccessToken({ sub: `sub-${who}`, username: who, realmRoles: [] })}`;
  return {
    vic: await bearer('vic'),
    ada: await bearer('ada'),
    gus: await bearer('gus'),
    globexFlow: await seedFlow(world.knex, globex, { name: 'theirs', versions: [BARE] }),
  };
}

/** A user's GET of the daemon, in `org` (acme unless told). */
export function userGet(world: CallbacksWorld, authorization: string, path: string, org = 'acme'): Promise<Response> {
  return fetch(`${world.daemon.url}${path}`, { headers: { authorization, 'x-org-id': org } });
}

export function monitorStreamUrl(base: string, runId: string, query: Record<string, string | number>): string {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  return `${base}/runs/${runId}/monitors/stream?${search.toString()}`;
}
