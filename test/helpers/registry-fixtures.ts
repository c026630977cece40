import { callback, heldRun, json, startCallbacksWorld, type CallbacksWorld } from './callbacks-fixtures.js';
import { seedFlow, BARE } from './runs-fixtures.js';
import { seedOrg } from './seed.js';

/**
 * What the registry tests share: the run callbacks' world (acme, whose operator starts runs a worker
 * `w1` holds), with globex beside it and commons as the shared organization, the registry proxy's secret
 * set, and registry run tokens minted as a worker mints them.
 */

export const PROXY_SECRET = 'registry-proxy-secret-0123456789';

export interface RegistryWorld extends CallbacksWorld {
  readonly globexId: string;
  readonly commonsId: string;
  readonly globexFlowId: string;
}

export async function startRegistryWorld(env: Record<string, string> = {}): Promise<RegistryWorld> {
  const world = await startCallbacksWorld({ SERVICE_REGISTRY_PROXY_SECRET: PROXY_SECRET, ...env });
  const globexId = await seedOrg(world.knex, 'globex');
  const commonsId = await seedOrg(world.knex, 'commons');
  await world.knex('organizations').where({ id: commonsId }).update({ is_shared: true });
  world.daemon.services.orgAccess.invalidate();
  const globexFlowId = await seedFlow(world.knex, globexId, { name: 'theirs', versions: [BARE] });
  return { ...world, globexId, commonsId, globexFlowId };
}

export interface RegistryToken {
  readonly id: string;
  readonly token: string;
  readonly runId: string;
  readonly stepRunId: string;
}

/** A held run of acme with a running step `build`, and a registry token minted for it. */
export async function registryToken(world: CallbacksWorld): Promise<RegistryToken> {
  const runId = await heldRun(world);
  const step = await json<{ id: string }>(
    await callback(world, 'POST', `/internal/runs/${runId}/step-runs`, { body: { step_id: 'build', handler: 'container.run' } }),
    201,
  );
  const minted = await json<{ id: string; token: string }>(
    await callback(world, 'POST', `/internal/runs/${runId}/registry-access`, { body: { step_id: 'build' } }),
    201,
  );
  return { id: minted.id, token: minted.token, runId, stepRunId: step.id };
}

export async function revoke(world: CallbacksWorld, token: RegistryToken): Promise<void> {
  const answer = await callback(world, 'DELETE', `/internal/runs/${token.runId}/registry-access/${token.id}`);
  if (answer.status !== 204) throw new Error(`revoke answered ${answer.status}`);
}

export function basic(password: string, user = 'step'): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** `GET /registry/authorize` as nginx's `auth_request` asks it. */
export async function authorize(
  base: string,
  request: { method: string; uri: string; authorization?: string; secret?: string | null },
): Promise<{ status: number; challenge: string | null; code: string | undefined }> {
  const headers: Record<string, string> = { 'x-original-method': request.method, 'x-original-uri': request.uri };
  const secret = request.secret === undefined ? PROXY_SECRET : request.secret;
  if (secret !== null) headers['x-registry-proxy-secret'] = secret;
  if (request.authorization !== undefined) headers.authorization = request.authorization;
  const response = await fetch(`${base}/registry/authorize`, { headers });
  const text = await response.text();
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    code: text ? (JSON.parse(text) as { code?: string }).code : undefined,
  };
}
