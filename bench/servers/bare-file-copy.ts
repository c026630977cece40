import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

/**
 * The artifacts' baseline: a plain Node HTTP server that copies a request body into a file
 * (`POST /files/<name>`), streams a file back with its length (`GET /files/<name>`) and deletes one
 * (`DELETE /files/<name>`), nothing else.
 */
const dir = process.env.BENCH_FILES_DIR!;
const server = createServer((req, res) => {
  const name = /^\/files\/([\w.-]+)$/.exec(req.url ?? '')?.[1];
  if (req.url === '/ready') return res.end('ok');
  if (!name) return res.writeHead(404).end();
  const path = join(dir, name);
  const done = (error: unknown) => {
    if (error && !res.headersSent) res.writeHead(500).end();
  };
  if (req.method === 'POST') {
    pipeline(req, createWriteStream(path)).then(() => res.writeHead(201).end('{}'), done);
    return;
  }
  if (req.method === 'DELETE') {
    rm(path, { force: true }).then(() => res.writeHead(204).end(), done);
    return;
  }
  stat(path).then((info) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': info.size });
    return pipeline(createReadStream(path), res);
  }, done);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
