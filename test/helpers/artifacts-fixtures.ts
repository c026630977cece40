import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Knex } from 'knex';
import yauzl from 'yauzl';
import { startDevIdp, type DevIdp } from '../../src/daemon/dev-idp/index.js';
import { artifactsModule } from '../../src/daemon/domains/artifacts/module.js';
import { RepositoriesRepo } from '../../src/daemon/domains/files/repositories-repo.js';
import { RepositoriesService } from '../../src/daemon/domains/files/repositories-service.js';
import { RepositoryBlobs } from '../../src/daemon/domains/files/repository-blobs.js';
import { RepositoryStores } from '../../src/daemon/domains/files/repository-stores.js';
import type { SecretResolver } from '../../src/daemon/domains/secrets/secret-resolver.js';
import type { Logger } from '../../src/daemon/logging/logger.js';
import { startTestDaemon, startTestDaemonOn, type TestDaemon } from './daemon.js';
import { BARE, seedFlow } from './runs-fixtures.js';
import { seedOrg, seedUser } from './seed.js';

export const INTERNAL_TOKEN = 'worker-secret-0123456789-abcdefghij';
const SECRETS_KEY = 'cd'.repeat(32);

/**
 * A daemon (and, on PostgreSQL, a second one on its database) with the worker token, organizations `acme`
 * (operator opal, viewer vic, admin ada) and `beta` (viewer bea), and a committed flow of acme.
 */
export interface ArtifactsWorld {
  readonly daemon: TestDaemon;
  readonly idp: DevIdp;
  readonly knex: Knex;
  readonly flowId: string;
  /** `Authorization` by user name. */
  readonly as: Readonly<Record<'opal' | 'vic' | 'ada' | 'bea', string>>;
  close(): Promise<void>;
}

export async function startArtifactsWorld(env: Record<string, string> = {}, log?: Logger): Promise<ArtifactsWorld> {
  const idp = await startDevIdp();
  const daemonEnv = {
    SERVICE_IDP_ISSUER: idp.issuer,
    SERVICE_ORG_AUTO_JOIN: 'false',
    SERVICE_INTERNAL_API_TOKEN: INTERNAL_TOKEN,
    SERVICE_SECRETS_ENCRYPTION_KEY: SECRETS_KEY,
    ...env,
  };
  const daemon = await startTestDaemon(daemonEnv, {}, log);
  const knex = daemon.services.db.knex;
  const orgId = await seedOrg(knex, 'acme');
  await seedOrg(knex, 'beta');
  await seedUser(knex, { sub: 'sub-opal', username: 'opal' }, [{ orgSlug: 'acme', role: 'operator' }]);
  await seedUser(knex, { sub: 'sub-vic', username: 'vic' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  await seedUser(knex, { sub: 'sub-ada', username: 'ada' }, [{ orgSlug: 'acme', role: 'admin' }]);
  await seedUser(knex, { sub: 'sub-bea', username: 'bea' }, [{ orgSlug: 'beta', role: 'viewer' }]);
  const bearer = async (name: string) => `Bearer ${await idp.mintAccessToken({ sub: `sub-${name}`, username: name, realmRoles: [] })}`;
  const flowId = await seedFlow(knex, orgId, { name: 'keeper', versions: [BARE] });
  return {
    daemon,
    idp,
    knex,
    flowId,
    as: { opal: await bearer('opal'), vic: await bearer('vic'), ada: await bearer('ada'), bea: await bearer('bea') },
    close: async () => {
      await daemon.close();
      await idp.stop();
    },
  };
}

/** Another instance of the world's deployment, on its database (PostgreSQL only). */
export function secondDaemon(world: ArtifactsWorld, env: Record<string, string> = {}): Promise<TestDaemon> {
  return startTestDaemonOn(world.daemon.location, {
    SERVICE_IDP_ISSUER: world.idp.issuer,
    SERVICE_ORG_AUTO_JOIN: 'false',
    SERVICE_INTERNAL_API_TOKEN: INTERNAL_TOKEN,
    SERVICE_SECRETS_ENCRYPTION_KEY: SECRETS_KEY,
    ...env,
  });
}

/**
 * The maintenance job `artifacts.sweep` of the world's daemon, run now (the tests turn the timer off). Its
 * repositories reach local ones only: the sweep reads no S3 store.
 */
export function sweepArtifacts(world: ArtifactsWorld, now = new Date()) {
  const { services } = world.daemon;
  const noSecrets = {} as SecretResolver;
  const repo = new RepositoriesRepo(services.db.knex);
  const stores = new RepositoryStores(join(services.config.dataDir, 'files'), noSecrets);
  const repositories = new RepositoryBlobs(repo, new RepositoriesService(repo, services.orgAccess, stores, services.audit), stores);
  return artifactsModule(services, { repositories }).sweep(now);
}

/** A run of acme admitted through POST /runs and claimed by `workerId` through a heartbeat; answers its id and attempt. */
export async function claimedRun(world: ArtifactsWorld, workerId = 'w1'): Promise<{ runId: string; attempt: number }> {
  const url = world.daemon.url;
  const admitted = await fetch(`${url}/runs`, {
    method: 'POST',
    headers: { authorization: world.as.opal, 'x-org-id': 'acme', 'content-type': 'application/json' },
    body: JSON.stringify({ flow_id: world.flowId }),
  });
  if (admitted.status !== 201) throw new Error(`POST /runs answered ${admitted.status}: ${await admitted.text()}`);
  const runId = ((await admitted.json()) as { id: string }).id;
  // Only this run is queued: anything left by an earlier test is out of the way.
  await world
    .knex('runs')
    .whereNot({ id: runId })
    .where({ status: 'queued' })
    .update({ status: 'cancelled', finished_at: world.knex.fn.now() });
  const beat = await fetch(`${url}/internal/workers/heartbeat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-token': INTERNAL_TOKEN },
    body: JSON.stringify({ worker_id: workerId, free_slots: 1 }),
  });
  const answer = (await beat.json()) as { assignments: { run_id: string; attempt: number }[] };
  const mine = answer.assignments.find((a) => a.run_id === runId);
  if (!mine) throw new Error(`the heartbeat did not hand out ${runId}: ${JSON.stringify(answer)}`);
  return { runId, attempt: mine.attempt };
}

export interface UploadOptions {
  readonly name?: string;
  readonly stepId?: string;
  readonly contentType?: string;
  readonly worker?: string;
  readonly attempt?: number;
  /** Send the body chunked (no Content-Length), as a stream. */
  readonly chunked?: boolean;
  readonly url?: string;
}

/** `POST /internal/runs/{run_id}/artifacts/upload` as the worker sends it. */
export function upload(world: ArtifactsWorld, runId: string, bytes: Buffer, options: UploadOptions = {}): Promise<Response> {
  const query = new URLSearchParams({ name: options.name ?? 'out.bin', ...(options.stepId ? { step_id: options.stepId } : {}) });
  const headers: Record<string, string> = {
    'x-internal-token': INTERNAL_TOKEN,
    'x-worker-id': options.worker ?? 'w1',
    'x-run-attempt': String(options.attempt ?? 1),
  };
  if (options.contentType) headers['content-type'] = options.contentType;
  const body = options.chunked ? chunksOf(bytes) : bytes;
  return fetch(`${options.url ?? world.daemon.url}/internal/runs/${runId}/artifacts/upload?${query.toString()}`, {
    method: 'POST',
    headers,
    body,
    duplex: 'half',
  } as RequestInit);
}

function chunksOf(bytes: Buffer): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, (at += 64 * 1024)));
    },
  });
}

/** A user's GET in an organization. */
export function get(
  world: ArtifactsWorld,
  path: string,
  who: string,
  org = 'acme',
  url = world.daemon.url,
  headers: Record<string, string> = {},
) {
  return fetch(`${url}${path}`, { headers: { authorization: who, 'x-org-id': org, ...headers } });
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** What storage holds of a run: rows, chunks, and files under the daemon's data directory. */
export async function storedFor(
  world: ArtifactsWorld,
  runId: string,
): Promise<{ rows: number; chunks: number; files: string[]; parts: string[] }> {
  const count = async (table: string) =>
    Number(((await world.knex(table).where({ run_id: runId }).count({ n: '*' }).first()) as { n: string }).n);
  const root = join(world.daemon.services.config.dataDir, 'artifacts');
  const list = (dir: string) => readdir(dir).catch(() => [] as string[]);
  return {
    rows: await count('run_artifacts'),
    chunks: await count('run_artifact_chunks'),
    files: await list(join(root, 'runs', runId)),
    parts: await list(join(root, 'tmp')),
  };
}

/** The entries of a zip, with their bytes. */
export function unzip(zip: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, file) => {
      if (error || !file) return reject(error ?? new Error('no zip'));
      const entries = new Map<string, Buffer>();
      file.on('error', reject);
      file.on('end', () => resolve(entries));
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (openError, stream) => {
          if (openError || !stream) return reject(openError ?? new Error('no stream'));
          const parts: Buffer[] = [];
          stream.on('data', (part: Buffer) => parts.push(part));
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(parts));
            file.readEntry();
          });
        });
      });
      file.readEntry();
    });
  });
}

/** Waits for a condition the daemon reaches on its own (no timing is asserted: the suite's timeout bounds it). */
export async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Starts an upload (`name`) of a body that never ends, waits until `begun` says the store has started
 * keeping it, and cuts the connection; resolves once the client has seen its request aborted.
 */
export async function abandonUpload(world: ArtifactsWorld, runId: string, begun: () => Promise<boolean>, name = 'cut'): Promise<void> {
  const aborter = new AbortController();
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return new Promise(() => undefined);
      sent = true;
      controller.enqueue(randomBytes(2_500_000));
    },
  });
  const answer = fetch(`${world.daemon.url}/internal/runs/${runId}/artifacts/upload?name=${name}`, {
    method: 'POST',
    headers: { 'x-internal-token': INTERNAL_TOKEN, 'x-worker-id': 'w1', 'x-run-attempt': '1' },
    body,
    duplex: 'half',
    signal: aborter.signal,
  } as RequestInit).catch(() => 'aborted');
  await until(begun);
  aborter.abort();
  if ((await answer) !== 'aborted') throw new Error('the abandoned upload was answered');
}

/** What a viewer of another organization (beta) gets for the artifact and for its run's zip: status and code of each. */
export async function seenFromBeta(world: ArtifactsWorld, runId: string, artifactId: string): Promise<[number, string][]> {
  const answers = [
    await get(world, `/runs/${runId}/artifacts/${artifactId}/download`, world.as.bea, 'beta'),
    await get(world, `/runs/${runId}/artifacts/download-all`, world.as.bea, 'beta'),
  ];
  return Promise.all(answers.map(async (r) => [r.status, ((await r.json()) as { code: string }).code] as [number, string]));
}
