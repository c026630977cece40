import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomFile, timedDownload, timedUpload } from './transfer.js';
import { freePort, median, pairedRatio, settleDisk, startServer, type Server } from './lib.js';
import { openScratchDatabase } from './scratch-database.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const BARE_COPY = fileURLToPath(new URL('./servers/bare-file-copy.js', import.meta.url));
const MB = 1024 * 1024;
const SIZE = 64 * MB;

type Line = (name: string, value: string) => void;

export interface FilesBenchOptions {
  readonly postgresUrl: string;
  readonly rounds: number;
}

/** Interleaved rounds of one daemon's local file repository against the bare copy, same file, same client. */
async function throughputFigures(line: Line, label: string, daemon: Server, bare: Server, file: string, rounds: number): Promise<void> {
  const headers = { 'x-org-id': 'default' };
  const ensured = await fetch(`${daemon.url}/file-repositories/ensure-default`, { method: 'POST', headers });
  const repo = ((await ensured.json()) as { id: string }).id;
  const up = { bare: [] as number[], svcd: [] as number[] };
  const down = { bare: [] as number[], svcd: [] as number[] };
  for (let round = 0; round <= rounds; round += 1) {
    // Round 0 warms both up and is not counted.
    settleDisk();
    const b = await timedUpload(`${bare.url}/files/r${round}`, file, SIZE, {});
    settleDisk();
    const s = await timedUpload(`${daemon.url}/file-repositories/${repo}/files/upload?name=r${round}.bin`, file, SIZE, headers);
    const listed = await fetch(`${daemon.url}/files?q=r${round}.bin`, { headers }).then(
      (r) => r.json() as Promise<{ items: { id: string }[] }>,
    );
    const bd = await timedDownload(`${bare.url}/files/r${round}`, SIZE);
    const sd = await timedDownload(`${daemon.url}/files/${listed.items[0]!.id}/download`, SIZE, headers);
    // Each round's files go once measured, so no round's disk holds (or writes back) an earlier one's.
    await fetch(`${bare.url}/files/r${round}`, { method: 'DELETE' });
    await fetch(`${daemon.url}/files/${listed.items[0]!.id}`, { method: 'DELETE', headers });
    if (round === 0) continue;
    up.bare.push(SIZE / MB / b);
    up.svcd.push(SIZE / MB / s);
    down.bare.push(SIZE / MB / bd);
    down.svcd.push(SIZE / MB / sd);
  }
  line(`bare HTTP file copy, upload ${SIZE / MB} MB (MB/s, median)`, median(up.bare).toFixed(0));
  line(`svcd ${label}, upload (MB/s, median)`, median(up.svcd).toFixed(0));
  line(`ratio ${label} upload / bare copy (aim >= 0.6)`, pairedRatio(up.svcd, up.bare).toFixed(2));
  line(`bare HTTP file copy, download ${SIZE / MB} MB (MB/s, median)`, median(down.bare).toFixed(0));
  line(`svcd ${label}, download (MB/s, median)`, median(down.svcd).toFixed(0));
  line(`ratio ${label} download / bare copy (aim >= 0.6)`, pairedRatio(down.svcd, down.bare).toFixed(2));
}

/**
 * Files: upload and download MB/s of a local file repository (the data directory's disk) against a plain
 * Node HTTP server streaming the same file to and from the same disk, in interleaved rounds; the ratios are
 * the medians of each round's pair (aim >= 0.6). Measured with the daemon on embedded PGlite and on
 * PostgreSQL: the bytes take the same path, but PGlite runs in the daemon's own thread and writes its files
 * synchronously there, which the upload then waits behind.
 */
export async function filesBenchmark(line: Line, options: FilesBenchOptions): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'svc-bench-files-'));
  const servers: Server[] = [];
  try {
    const file = join(work, 'upload.bin');
    await randomFile(file, SIZE);
    const bare = await startServer([BARE_COPY], await freePort(), '/ready', { BENCH_FILES_DIR: work });
    servers.push(bare);
    const env = { SERVICE_LOG_LEVEL: 'warn', SERVICE_AUTH_DISABLED: 'true' };
    const pglite = await startServer([DAEMON], await freePort(), '/ready', { ...env, SERVICE_DATA_DIR: join(work, 'data') });
    servers.push(pglite);
    await throughputFigures(line, 'local file repository (PGlite)', pglite, bare, file, options.rounds);
    await pglite.stop();

    const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_files');
    if (!scratch) return line('files, daemon on PostgreSQL', `skipped (no server at ${options.postgresUrl})`);
    try {
      const daemon = await startServer([DAEMON], await freePort(), '/ready', {
        ...env,
        SERVICE_DATA_DIR: join(work, 'data-pg'),
        SERVICE_DATABASE_URL: scratch.url,
      });
      scratch.servers.push(daemon);
      await throughputFigures(line, 'local file repository (PostgreSQL)', daemon, bare, file, options.rounds);
    } finally {
      await scratch.close();
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await rm(work, { recursive: true, force: true });
  }
}
