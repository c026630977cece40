import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/webhooks-fixtures.js';
import { downloadHash, sha256, startFilesWorld, type FilesWorld } from './helpers/files-fixtures.js';

const MAX = 1_000_000;
const IMAGE = Buffer.from('a firmware image\n'.repeat(1000));

/** A server on loopback the imports fetch from: a file, a large file, a 404 and a redirect to a private address. */
function startOrigin(): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/images/ios-xe.bin') return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(IMAGE);
    if (req.url === '/huge.bin') {
      res.writeHead(200);
      // Chunked, with no length to refuse up front: the size limit must stop it while it streams.
      const block = Buffer.alloc(64 * 1024, 1);
      for (let i = 0; i < 40; i += 1) res.write(block);
      return void res.end();
    }
    if (req.url === '/to-private') return void res.writeHead(302, { location: 'http://10.20.30.40/image.bin' }).end();
    res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Imports from a URL, on a daemon allowed to reach loopback (the refusal without it: files-routes.test.ts). */
describe('file import from a URL', () => {
  let world: FilesWorld;
  let origin: Server;
  let base: string;
  let repo: string;

  beforeAll(async () => {
    origin = await startOrigin();
    base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    world = await startFilesWorld({ SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8', SERVICE_FILE_MAX_BYTES: String(MAX) });
    repo = (await call(world, 'alice', 'POST', '/file-repositories/ensure-default')).body.id;
  });
  afterAll(async () => {
    await world?.close();
    await new Promise((resolve) => origin?.close(resolve));
  });

  it('fetches the URL into the repository, named after its path, with its SHA-256 checked and its source kept', async () => {
    const url = `${base}/images/ios-xe.bin`;
    const imported = await call(world, 'alice', 'POST', `/file-repositories/${repo}/files/import`, {
      url,
      folder: 'images',
      sha256: sha256(IMAGE),
    });
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({
      name: 'ios-xe.bin',
      folder: 'images',
      size_bytes: IMAGE.length,
      sha256: sha256(IMAGE),
      source_url: url,
    });
    const down = await downloadHash(world, `/files/${imported.body.id}/download`, 'carol');
    expect([down.status, down.sha256]).toEqual([200, sha256(IMAGE)]);
    const audited = await world
      .knex()('audit_logs')
      .where({ resource_type: 'file', resource_id: imported.body.id, event_type: 'entity.created' })
      .first();
    expect(audited.details_json.source_url).toBe(url);
  });

  it('keeps nothing when the checksum differs (422), the far side answers an error (502), or the body passes the size limit (413)', async () => {
    const wrong = await call(world, 'alice', 'POST', `/file-repositories/${repo}/files/import`, {
      url: `${base}/images/ios-xe.bin`,
      name: 'wrong.bin',
      sha256: sha256(Buffer.from('other')),
    });
    expect([wrong.status, wrong.body.code]).toEqual([422, 'checksum_mismatch']);
    const missing = await call(world, 'alice', 'POST', `/file-repositories/${repo}/files/import`, { url: `${base}/nope.bin` });
    expect([missing.status, missing.body.code, missing.body.upstream_status]).toEqual([502, 'import_failed', 404]);
    const huge = await call(world, 'alice', 'POST', `/file-repositories/${repo}/files/import`, { url: `${base}/huge.bin` });
    expect([huge.status, huge.body.code]).toEqual([413, 'file_too_large']);
    expect(await world.knex()('files').whereIn('name', ['wrong.bin', 'nope.bin', 'huge.bin']).first()).toBeUndefined();
  });

  it('refuses a redirect to a private address, checked at every hop (422 import_refused)', async () => {
    const redirected = await call(world, 'alice', 'POST', `/file-repositories/${repo}/files/import`, {
      url: `${base}/to-private`,
      name: 'x.bin',
    });
    expect([redirected.status, redirected.body.code, redirected.body.reason]).toEqual([422, 'import_refused', 'address_not_allowed']);
  });

  it('refuses a traversal name before fetching anything', async () => {
    const refused = await call(world, 'alice', 'POST', `/file-repositories/${repo}/files/import`, {
      url: `${base}/images/ios-xe.bin`,
      name: '../../x',
    });
    expect([refused.status, refused.body.code]).toEqual([422, 'invalid_file_path']);
  });
});
