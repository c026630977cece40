import { createHash } from 'node:crypto';
import { seedUser } from './seed.js';
import { callback, heldRun, json, type CallbacksWorld } from './callbacks-fixtures.js';

/** Bearer headers of a user of acme with `role` (seeded on first use), and of a platform admin. */
export async function bearerOf(
  world: CallbacksWorld,
  username: string,
  role: string | undefined,
  realmRoles: string[] = [],
): Promise<string> {
  const sub = `sub-${username}`;
  await seedUser(world.knex, { sub, username }, role ? [{ orgSlug: 'acme', role }] : []);
  return `Bearer ${await world.idp.mintAccessToken({ sub, username, realmRoles })}`;
}

export interface StateToken {
  readonly runId: string;
  readonly stepRunId: string;
  readonly id: string;
  readonly token: string;
  /** `Authorization: Basic` with the token as password, as Terraform sends it. */
  readonly basic: string;
}

export function basicWith(token: string, user = 'terraform'): string {
  return `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}`;
}

/** A held run with a running step `apply`, and a state backend token for `stateName` minted for it by its worker. */
export async function mintStateToken(world: CallbacksWorld, stateName: string): Promise<StateToken> {
  const runId = await heldRun(world);
  const step = await json<{ id: string }>(
    await callback(world, 'POST', `/internal/runs/${runId}/step-runs`, { body: { step_id: 'apply', handler: 'iac.apply' } }),
    201,
  );
  const minted = await json<{ id: string; token: string }>(
    await callback(world, 'POST', `/internal/runs/${runId}/iac-state-access`, { body: { step_id: 'apply', state_name: stateName } }),
    201,
  );
  return { runId, stepRunId: step.id, id: minted.id, token: minted.token, basic: basicWith(minted.token) };
}

export function md5(body: string | Buffer): string {
  return createHash('md5').update(body).digest('base64');
}

/** Terraform's lock info body. */
export function lockInfo(id: string, who = 'tf@host'): Record<string, string> {
  return {
    ID: id,
    Operation: 'OperationTypeApply',
    Info: '',
    Who: who,
    Version: '1.11.4',
    Created: '2026-11-27T12:00:00.000000000Z',
    Path: '',
  };
}

/** A minimal state document as Terraform writes it. */
export function stateDoc(serial: number, lineage = 'b7d0c9e4-0000-4000-8000-000000000001', extra: Record<string, unknown> = {}): string {
  return JSON.stringify(
    { version: 4, terraform_version: '1.11.4', serial, lineage, outputs: {}, resources: [], check_results: null, ...extra },
    null,
    2,
  );
}

/**
 * The http backend's calls as Terraform makes them, on the world `current()` answers (it is made in a
 * `beforeAll`): `auth` a run token's Basic header or a user's bearer (a user names acme in X-Org-Id).
 */
export function stateBackend(current: () => CallbacksWorld) {
  const backend = (auth: string, method: string, name: string, tail: string, body?: string, headers: Record<string, string> = {}) => {
    const sent: Record<string, string> = { authorization: auth, 'x-org-id': 'acme', ...headers };
    if (body !== undefined) {
      sent['content-type'] = 'application/json';
      sent['content-md5'] ??= md5(body);
    }
    return fetch(`${current().daemon.url}/iac-states/${name}/${tail}`, { method, headers: sent, body });
  };
  const authOf = (t: StateToken | string) => (typeof t === 'string' ? t : t.basic);
  return {
    backend,
    lock: (t: StateToken | string, name: string, id: string) => backend(authOf(t), 'POST', name, 'lock', JSON.stringify(lockInfo(id))),
    unlock: (t: StateToken | string, name: string, id: string | undefined) =>
      backend(authOf(t), 'DELETE', name, 'lock', id === undefined ? undefined : JSON.stringify(lockInfo(id))),
    write: (t: StateToken | string, name: string, doc: string, id?: string, headers: Record<string, string> = {}) =>
      backend(authOf(t), 'POST', name, `state${id === undefined ? '' : `?ID=${id}`}`, doc, headers),
  };
}
