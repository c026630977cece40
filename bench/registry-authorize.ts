import { fileURLToPath } from 'node:url';
import { seedOperatorFlow } from './claim.js';
import { freePort, median, pairedRatio, requestsPerSecond, startServer } from './lib.js';
import { openScratchDatabase } from './scratch-database.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const INTERNAL = 'bench-internal-token-0123456789abcdef';
const PROXY_SECRET = 'bench-registry-proxy-secret-0123456789';

export interface RegistryAuthorizeOptions {
  readonly postgresUrl: string;
  readonly seconds: number;
  readonly rounds: number;
}

/**
 * `GET /registry/authorize` as the registry's proxy asks it during a pull (a manifest GET with a live
 * registry run token), against `GET /health` of the same daemon, in interleaved rounds: the decision sits
 * on every registry request, so it should cost little more than the request path itself (aim >= 0.7).
 */
export async function registryAuthorizeBenchmark(
  line: (name: string, value: string) => void,
  options: RegistryAuthorizeOptions,
): Promise<void> {
  const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_registry');
  if (!scratch) return line('registry-authorize on PostgreSQL', `skipped (no server at ${options.postgresUrl})`);
  const { url: databaseUrl, db, idp, servers } = scratch;
  try {
    const daemon = await startServer([DAEMON], await freePort(), '/ready', {
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_IDP_ISSUER: idp.issuer,
      SERVICE_ORG_AUTO_JOIN: 'false',
      SERVICE_INTERNAL_API_TOKEN: INTERNAL,
      SERVICE_REGISTRY_PROXY_SECRET: PROXY_SECRET,
      SERVICE_MAINTENANCE_TIMER_ENABLED: 'false',
    });
    servers.push(daemon);
    const flowId = await seedOperatorFlow(db);
    const operator = await idp.mintAccessToken({
      sub: 'bench-operator',
      username: 'bench-operator',
      realmRoles: [],
      expiresInSeconds: 3600,
    });
    const token = await mintRegistryToken(daemon.url, db, flowId, operator);
    const headers = {
      'x-registry-proxy-secret': PROXY_SECRET,
      'x-original-method': 'GET',
      'x-original-uri': '/v2/orgs/bench/docker.io/library/alpine/manifests/3.19',
      authorization: `Basic ${Buffer.from(`step:${token}`).toString('base64')}`,
    };
    const authorizeUrl = `${daemon.url}/registry/authorize`;
    await requestsPerSecond(authorizeUrl, 1, 204, headers);
    await requestsPerSecond(`${daemon.url}/health`, 1, 200);
    const health: number[] = [];
    const authorize: number[] = [];
    for (let round = 0; round < options.rounds; round += 1) {
      health.push(await requestsPerSecond(`${daemon.url}/health`, options.seconds, 200));
      authorize.push(await requestsPerSecond(authorizeUrl, options.seconds, 204, headers));
    }
    line('GET /health (req/s, median)', median(health).toFixed(0));
    line('GET /registry/authorize, a pull, live token (req/s, median)', median(authorize).toFixed(0));
    line('ratio authorize / health (aim >= 0.7)', pairedRatio(authorize, health).toFixed(2));
  } finally {
    await scratch.close();
  }
}

/** A run admitted through POST /runs, held by worker `w1`, with its step running and a registry token minted for it. */
async function mintRegistryToken(base: string, db: import('knex').Knex, flowId: string, operator: string): Promise<string> {
  const admitted = await fetch(`${base}/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${operator}`, 'x-org-id': 'bench', 'content-type': 'application/json' },
    body: JSON.stringify({ flow_id: flowId }),
  });
  if (admitted.status !== 201) throw new Error(`POST /runs answered ${admitted.status}: ${await admitted.text()}`);
  const runId = ((await admitted.json()) as { id: string }).id;
  await db('runs')
    .where({ id: runId })
    .update({
      status: 'running',
      worker_id: 'w1',
      attempt: 1,
      claimed_at: db.fn.now(),
      started_at: db.fn.now(),
      lease_expires_at: db.raw(`now() + interval '1 hour'`),
    });
  const internal = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'x-internal-token': INTERNAL, 'x-worker-id': 'w1', 'x-run-attempt': '1', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const step = await internal(`/internal/runs/${runId}/step-runs`, { step_id: 'noop', handler: 'general.noop' });
  if (step.status !== 201) throw new Error(`step-runs answered ${step.status}: ${await step.text()}`);
  const minted = await internal(`/internal/runs/${runId}/registry-access`, { step_id: 'noop' });
  if (minted.status !== 201) throw new Error(`registry-access answered ${minted.status}: ${await minted.text()}`);
  return ((await minted.json()) as { token: string }).token;
}
