import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { writeFileDurably } from '../../src/daemon/storage/durable-file.js';
import { StreamMeter } from '../../src/daemon/storage/stream-meter.js';

/**
 * The artifacts' baseline: a plain Node HTTP server that copies a request body into a file
 * (`POST /files/<name>`), streams a file back with its length (`GET /files/<name>`) and deletes one
 * (`DELETE /files/<name>`), nothing else. `POST /hashed/<name>` is the same copy doing what every store
 * must, with the daemon's own pieces: a SHA-256 of the bytes as they pass (`StreamMeter`) and a durable write
 * (`writeFileDurably`). Between it and the bare copy is what the contract costs; between it and a file store,
 * the daemon.
 */
const dir = process.env.BENCH_FILES_DIR!;

/** The stores' own metering and durable write (part file, spread fdatasyncs, rename, directory sync). */
async function hashedDurableCopy(req: IncomingMessage, path: string): Promise<void> {
  const meter = new StreamMeter(Number.POSITIVE_INFINITY, () => new Error('no limit'));
  await writeFileDurably(meter.pass(req), `${path}.part`, path);
  meter.measured();
}

const server = createServer((req, res) => {
  const [, kind, name] = /^\/(files|hashed)\/([\w.-]+)$/.exec(req.url ?? '') ?? [];
  if (req.url === '/ready') return res.end('ok');
  if (!name) return res.writeHead(404).end();
  const path = join(dir, name);
  const done = (error: unknown) => {
    if (error && !res.headersSent) res.writeHead(500).end();
  };
  if (req.method === 'POST') {
    const copy = kind === 'hashed' ? hashedDurableCopy(req, path) : pipeline(req, createWriteStream(path));
    copy.then(() => res.writeHead(201).end('{}'), done);
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
