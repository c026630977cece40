import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';
import { testClock, type TestClock } from './schedules-fixtures.js';
import { call, createSecret, startWorld, type Answer, type World } from './webhooks-fixtures.js';

/**
 * What the file tests share: the webhook tests' world (acme: alice admin, carol viewer; globex: bob;
 * commons shared: sam), its daemon reading "now" from a clock the test sets, and helpers that stream bytes
 * both ways without holding them.
 */
export interface FilesWorld extends World {
  readonly clock: TestClock;
}

export async function startFilesWorld(env: Record<string, string> = {}): Promise<FilesWorld> {
  const clock = testClock('2026-11-27T12:00:00Z');
  const world = await startWorld(env, { clock: () => clock.now });
  return { ...world, clock };
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `postBody`'s arguments after the path: query, body, who, org, headers. */
export type PostBodyRest = Parameters<typeof postBody> extends [World, string, ...infer Rest] ? Rest : never;

/** Streams `body` as an upload (chunked unless a length is given), as `who`, and answers status and JSON. */
export function uploadStream(world: World, repositoryId: string, ...rest: PostBodyRest): Promise<Answer> {
  return postBody(world, `/file-repositories/${repositoryId}/files/upload`, ...rest);
}

/** POSTs `body` to `path` as `who` (octet-stream, chunked unless a buffer gives its length); answers status and JSON. */
export async function postBody(
  world: World,
  path: string,
  query: Record<string, string>,
  body: Readable | Buffer,
  who = 'alice',
  org = 'acme',
  headers: Record<string, string> = {},
): Promise<Answer> {
  const url = new URL(`${world.url}${path}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      // A connection of its own: one whose upload was refused part-way is not reused.
      agent: false,
      method: 'POST',
      headers: {
        authorization: world.as[who]!,
        'x-org-id': org,
        'content-type': 'application/octet-stream',
        ...(Buffer.isBuffer(body) ? { 'content-length': String(body.length) } : {}),
        ...headers,
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode!,
          headers: new Headers(res.headers as Record<string, string>),
          body: text ? JSON.parse(text) : undefined,
        });
      });
    });
    // A refusal may come before the whole body is sent: the answer is what counts.
    req.on('error', reject);
    if (Buffer.isBuffer(body)) req.end(body);
    else body.pipe(req);
  });
}

/** `size` bytes of a repeating pattern from a generator (never one buffer), and the SHA-256 they have. */
export function patterned(size: number): { stream: () => Readable; sha256: string } {
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < block.length; i += 1) block[i] = (i * 31 + 7) % 251;
  const hash = createHash('sha256');
  for (let left = size; left > 0; left -= block.length) hash.update(block.subarray(0, Math.min(left, block.length)));
  const digest = hash.digest('hex');
  function* blocks() {
    for (let left = size; left > 0; left -= block.length) yield block.subarray(0, Math.min(left, block.length));
  }
  return { stream: () => Readable.from(blocks(), { objectMode: false }), sha256: digest };
}

/** Downloads `path` as `who` (or without a credential), hashing as it goes: status, size, SHA-256, headers. */
export async function downloadHash(world: World, path: string, who?: string, org = 'acme') {
  const response = await fetch(`${world.url}${path}`, { headers: who ? { authorization: world.as[who]!, 'x-org-id': org } : {} });
  const hash = createHash('sha256');
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      hash.update(chunk);
    }
  }
  return { status: response.status, size, sha256: hash.digest('hex'), headers: response.headers };
}

export async function problemCode(answer: Answer): Promise<{ status: number; code: string | undefined }> {
  return { status: answer.status, code: answer.body?.code };
}

/** A repository made through the API; throws unless 201. */
export async function createRepository(world: World, body: Record<string, unknown>, who = 'alice', org = 'acme'): Promise<string> {
  const created = await call(world, who, 'POST', '/file-repositories', body, org);
  if (created.status !== 201) throw new Error(`POST /file-repositories answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

/** A local S3-compatible server (s3rver) with one bucket, and its credentials as secrets of `org`. */
export interface S3Server {
  readonly endpoint: string;
  readonly bucket: string;
  close(): Promise<void>;
}

export async function startS3(bucket = 'svc-files'): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'svc-s3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** s3rver's fixed credentials as two secrets of `org`; the config an S3 repository of it takes. */
export async function s3Config(world: World, s3: S3Server, org = 'acme', who = 'alice', bucket = s3.bucket) {
  for (const name of ['s3-access-key', 's3-secret-key']) {
    const exists = await call(world, who, 'GET', `/secrets?limit=500`, undefined, org);
    if (!exists.body?.items?.some((s: { name: string }) => s.name === name)) await createSecret(world, who, name, 'S3RVER', org);
  }
  return {
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket,
    prefix: 'svc/',
    access_key_id_ref: `builtin://orgs/${org}/secrets/s3-access-key`,
    secret_access_key_ref: `builtin://orgs/${org}/secrets/s3-secret-key`,
  };
}
