import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { type IncomingMessage, request } from 'node:http';
import { pipeline } from 'node:stream/promises';

const MB = 1024 * 1024;

/** A file of `bytes` random bytes, written 1 MiB at a time. */
export async function randomFile(path: string, bytes: number): Promise<void> {
  const file = await open(path, 'w');
  try {
    for (let left = bytes; left > 0; left -= MB) await file.write(randomBytes(Math.min(MB, left)));
  } finally {
    await file.close();
  }
}

/*
 * The client of the transfer figures is node:http piping a file, not fetch: on these two-core hosts fetch
 * with a streamed body took about 370 ms of CPU per 64 MB uploaded, node:http about 70. A client that
 * heavy takes its CPU from whichever server it measures, and most from the one that does the most work
 * (hashing, a database), so the figure said more about the client than about the daemon.
 */

/** The answer to a request: its status and its body's bytes, counted and (unless `keep` is false) kept. */
async function answer(response: IncomingMessage, keep: boolean): Promise<{ status: number; bytes: number; text: string }> {
  const kept: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (keep) kept.push(chunk);
  }
  return { status: response.statusCode ?? 0, bytes, text: Buffer.concat(kept).toString('utf8') };
}

/** Seconds to send `path` as a streamed body (with its length) and have the answer (201). */
export async function timedUpload(url: string, path: string, size: number, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(size), 'content-type': 'application/octet-stream' },
    });
    req.once('response', resolve).once('error', reject);
    pipeline(createReadStream(path, { highWaterMark: MB }), req).catch(reject);
  });
  const { status, text } = await answer(response, true);
  if (status !== 201) throw new Error(`${url}: ${status} ${text}`);
  return (performance.now() - started) / 1000;
}

/** Seconds to read a download to its end (the bytes counted, not kept). */
export async function timedDownload(url: string, size: number, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    request(url, { headers }).once('response', resolve).once('error', reject).end();
  });
  const { status, bytes } = await answer(response, false);
  if (status !== 200 || bytes !== size) throw new Error(`${url}: ${status}, ${bytes} of ${size} bytes`);
  return (performance.now() - started) / 1000;
}
