import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { postBody } from './files-fixtures.js';
import type { World } from './webhooks-fixtures.js';

export function uploadAttachment(
  world: World,
  flowId: string,
  path: string,
  bytes: Buffer,
  who = 'alice',
  org = 'acme',
  extra: Record<string, string> = {},
) {
  return postBody(world, `/flows/${flowId}/attachments`, { path, ...extra }, bytes, who, org);
}

/** A zip of `files` (path -> bytes), as `zip -r` makes one. */
export async function zipOf(files: Record<string, Buffer | string>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function uploadZip(world: World, flowId: string, zip: Buffer, query: Record<string, string> = {}, who = 'alice', org = 'acme') {
  return postBody(world, `/flows/${flowId}/attachments/bulk`, query, zip, who, org, { 'content-type': 'application/zip' });
}

/** A GET of an internal route with the internal token (and any fencing headers). */
export async function internalGet(world: World, path: string, token: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${world.url}${path}`, { headers: { 'x-internal-token': token, ...headers } });
  const bytes = Buffer.from(await response.arrayBuffer());
  const json =
    (response.headers.get('content-type') ?? '').includes('json') && bytes.length > 0 ? JSON.parse(bytes.toString('utf8')) : undefined;
  return { status: response.status, headers: response.headers, bytes, body: json };
}
