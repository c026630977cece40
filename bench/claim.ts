import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { freePort, startServer } from './lib.js';
import { openScratchDatabase } from './scratch-database.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const TOKEN = 'bench-internal-token-0123456789abcdef';

export interface ClaimOptions {
  readonly postgresUrl: string;
  /** How many runs are admitted, one at a time, each while the worker waits. */
  readonly runs: number;
}

/** An operator of one organization (slug `bench`) and a committed flow without inputs; answers the flow's id. */
export async function seedOperatorFlow(knex: Knex): Promise<string> {
  const [org] = await knex('organizations').insert({ slug: 'bench', name: 'Bench' }).returning('id');
  const orgId = (org as { id: string }).id;
  const [user] = await knex('users').insert({ sub: 'bench-operator', username: 'bench-operator' }).returning('id');
  await knex('org_memberships').insert({ user_id: (user as { id: string }).id, org_id: orgId, role: 'operator', source: 'manual' });
  const definition = { steps: [{ id: 'noop', handler: 'general.noop', config: {} }], edges: [], inputs: [], target_roles: [] };
  const [flow] = await knex('flows')
    .insert({ org_id: orgId, name: 'bench', draft_json: JSON.stringify(definition), draft_dirty: false, latest_version: 1 })
    .returning('id');
  const flowId = (flow as { id: string }).id;
  await knex('flow_versions').insert({ flow_id: flowId, version: 1, definition_json: JSON.stringify(definition) });
  return flowId;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * A worker that long-polls (`wait_s` 25) in a loop and notes when each run reaches it; the time of
 * arrival by run id, read by the admitting side.
 */
class PollingWorker {
  readonly arrivals = new Map<string, number>();
  #stopped = false;
  #loop: Promise<void> | undefined;
  readonly #waiting = new Map<string, () => void>();

  constructor(private readonly url: string) {}

  start(): void {
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    // The last heartbeat waits until a run comes or its wait ends; one more run ends it at once.
    await this.#loop?.catch(() => {});
  }

  /** Resolves when the run has arrived. */
  arrival(runId: string): Promise<number> {
    const at = this.arrivals.get(runId);
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => this.#waiting.set(runId, () => resolve(this.arrivals.get(runId)!)));
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const response = await fetch(`${this.url}/internal/workers/heartbeat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-internal-token': TOKEN },
        body: JSON.stringify({ worker_id: 'bench-worker', free_slots: 10, wait_s: 25 }),
      });
      const at = performance.now();
      if (response.status !== 200) throw new Error(`heartbeat answered ${response.status}: ${await response.text()}`);
      const answer = (await response.json()) as { assignments: { run_id: string }[] };
      for (const { run_id: runId } of answer.assignments) {
        this.arrivals.set(runId, at);
        this.#waiting.get(runId)?.();
        this.#waiting.delete(runId);
      }
    }
  }
}

/**
 * Claim latency on PostgreSQL: a worker long-polls while runs are admitted through `POST /runs`, one at
 * a time; from sending the POST to the run in the worker's hands, against the admission's own round
 * trip (the POST's answer) as the baseline. The difference is what the claim adds: the NOTIFY's delivery,
 * the waiting heartbeat's claim statement and its answer.
 */
export async function claimBenchmark(line: (name: string, value: string) => void, options: ClaimOptions): Promise<void> {
  const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_claim');
  if (!scratch) return line('claim: admission to assignment on PostgreSQL', `skipped (no server at ${options.postgresUrl})`);
  const { url: databaseUrl, db, idp, servers } = scratch;
  let worker: PollingWorker | undefined;
  try {
    const daemon = await startServer([DAEMON], await freePort(), '/ready', {
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_IDP_ISSUER: idp.issuer,
      SERVICE_ORG_AUTO_JOIN: 'false',
      SERVICE_INTERNAL_API_TOKEN: TOKEN,
      // Runs the bench worker never reports on must not be reaped and handed out again mid-figure.
      SERVICE_RUN_LEASE_SECONDS: '600',
    });
    servers.push(daemon);
    const flowId = await seedOperatorFlow(db);
    const token = await idp.mintAccessToken({ sub: 'bench-operator', username: 'bench-operator', realmRoles: [], expiresInSeconds: 3600 });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-org-id': 'bench' };
    const body = JSON.stringify({ flow_id: flowId });
    worker = new PollingWorker(daemon.url);
    worker.start();

    const admit = async () => {
      const sent = performance.now();
      const response = await fetch(`${daemon.url}/runs`, { method: 'POST', headers, body });
      const answered = performance.now();
      if (response.status !== 201) throw new Error(`POST /runs answered ${response.status}: ${await response.text()}`);
      const { id } = (await response.json()) as { id: string };
      return { id, sent, answered };
    };
    // Warm-up: pools, caches, prepared statements.
    for (let i = 0; i < 20; i += 1) {
      const run = await admit();
      await worker.arrival(run.id);
      await sleep(5);
    }
    const toHands: number[] = [];
    const roundTrip: number[] = [];
    const afterAnswer: number[] = [];
    for (let i = 0; i < options.runs; i += 1) {
      const run = await admit();
      const arrived = await worker.arrival(run.id);
      toHands.push(arrived - run.sent);
      roundTrip.push(run.answered - run.sent);
      afterAnswer.push(arrived - run.answered);
      // The worker is back in its wait before the next admission (its answer and new request take well under this).
      await sleep(5);
    }
    const ms = (value: number) => value.toFixed(1);
    line(
      `baseline: POST /runs round trip, ${options.runs} runs (ms, p50 / p99)`,
      `${ms(percentile(roundTrip, 50))} / ${ms(percentile(roundTrip, 99))}`,
    );
    line(
      "claim: POST /runs sent -> run in the waiting worker's hands (ms, p50 / p99)",
      `${ms(percentile(toHands, 50))} / ${ms(percentile(toHands, 99))} (aim p99 < 50)`,
    );
    line(
      '  of which after the POST was answered (ms, p50 / p99)',
      `${ms(percentile(afterAnswer, 50))} / ${ms(percentile(afterAnswer, 99))}`,
    );
    line('ratio claim p50 / admission p50', (percentile(toHands, 50) / percentile(roundTrip, 50)).toFixed(2));
    worker.stop().catch(() => {});
    // One more run ends the worker's last wait.
    await admit();
    await worker.stop();
  } finally {
    await scratch.close();
  }
}
