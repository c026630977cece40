import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { openDatabase } from '../src/daemon/db/database.js';
import { DatabaseArtifactStore } from '../src/daemon/domains/artifacts/database-artifact-store.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { freePort, median, pairedRatio, settleDisk, settlePostgresAndDisk, startServer, timeToReady, type Server } from './lib.js';
import { seedHeldRuns } from './run-events.js';
import { openScratchDatabase } from './scratch-database.js';
import { randomFile, timedDownload, timedUpload } from './transfer.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const BARE_COPY = fileURLToPath(new URL('./servers/bare-file-copy.js', import.meta.url));
const TOKEN = 'bench-internal-token-0123456789abcdef';

const MB = 1024 * 1024;
/** The throughput figure's artifact; the memory figure's is BIG. */
const SIZE = 64 * MB;
const BIG = 200 * MB;
/** The memory figures' daemon runs with this V8 old-space cap (`--max-old-space-size`). */
const HEAP_CAP_MB = 64;

const CAPPED = `--max-old-space-size=${HEAP_CAP_MB}`;

/** The aim, for the store artifacts go to unless told otherwise. */
const DEFAULT_AIM = 'aim >= 0.5';
/** The database store is chosen for several daemons without shared storage; PostgreSQL's own write bounds it. */
const DATABASE_AIM = 'opt-in store, bound by the database alone line';

type Line = (name: string, value: string) => void;

export interface ArtifactsBenchOptions {
  readonly postgresUrl: string;
  readonly rounds: number;
}

/** The resident set of a process (Linux /proc), in bytes. */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** The largest RSS growth of `pid` over its RSS before `work`, sampled every 10 ms while `work` runs. */
async function peakRssGrowth(pid: number, work: () => Promise<unknown>): Promise<number> {
  const before = await rssOf(pid);
  let peak = before;
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await rssOf(pid));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await sampler;
  }
  return peak - before;
}

interface Subject {
  readonly label: string;
  /** The ratios' aim as the figure's name shows it. */
  readonly aim: string;
  readonly daemon: Server;
  readonly run: string;
}

/** The routes of one daemon's held run, as the worker and a viewer call them. */
function endpoints(subject: Subject) {
  const internal = { 'x-internal-token': TOKEN, 'x-worker-id': 'bench-w', 'x-run-attempt': '1' };
  const viewer = { 'x-org-id': 'bench' };
  const uploadUrl = (name: string) => `${subject.daemon.url}/internal/runs/${subject.run}/artifacts/upload?name=${name}`;
  const downloadUrl = async (name: string) => {
    const id = await fetch(`${subject.daemon.url}/runs/${subject.run}/events?limit=1000`, { headers: viewer })
      .then((r) => r.json() as Promise<{ items: { type: string; data: { name: string; artifact_id: string } }[] }>)
      .then((page) => page.items.find((e) => e.type === 'artifact.created' && e.data.name === name)!.data.artifact_id);
    return `${subject.daemon.url}/runs/${subject.run}/artifacts/${id}/download`;
  };
  return { internal, viewer, uploadUrl, downloadUrl };
}

/**
 * Upload and download throughput of one store against the bare copy: interleaved rounds, same files, same
 * client. `settle` writes back what earlier rounds left dirty, before each timed upload. A third upload per
 * round, the bare copy hashing and syncing as a store must, is the reference the ratios are read against.
 */
async function throughputFigures(
  line: Line,
  subject: Subject,
  bare: Server,
  files: Files,
  rounds: number,
  settle: () => Promise<void>,
): Promise<{ bareUpload: number }> {
  const { internal, viewer, uploadUrl, downloadUrl } = endpoints(subject);
  const up = { bare: [] as number[], svcd: [] as number[], hashed: [] as number[] };
  const down = { bare: [] as number[], svcd: [] as number[] };
  for (let round = 0; round <= rounds; round += 1) {
    // Round 0 warms both up and is not counted.
    await settle();
    const b = await timedUpload(`${bare.url}/files/r${round}`, files.small, SIZE, {});
    await settle();
    const s = await timedUpload(uploadUrl(`r${round}`), files.small, SIZE, internal);
    await settle();
    const h = await timedUpload(`${bare.url}/hashed/h${round}`, files.small, SIZE, {});
    const bd = await timedDownload(`${bare.url}/files/r${round}`, SIZE);
    const sd = await timedDownload(await downloadUrl(`r${round}`), SIZE, viewer);
    await fetch(`${bare.url}/files/r${round}`, { method: 'DELETE' });
    await fetch(`${bare.url}/hashed/h${round}`, { method: 'DELETE' });
    if (round === 0) continue;
    up.bare.push(SIZE / MB / b);
    up.svcd.push(SIZE / MB / s);
    up.hashed.push(SIZE / MB / h);
    down.bare.push(SIZE / MB / bd);
    down.svcd.push(SIZE / MB / sd);
  }
  const label = subject.label;
  line(`bare HTTP file copy, upload ${SIZE / MB} MB (MB/s, median)`, median(up.bare).toFixed(0));
  line(`svcd ${label}, artifact upload (MB/s, median)`, median(up.svcd).toFixed(0));
  line(`ratio ${label} upload / bare copy (${subject.aim})`, pairedRatio(up.svcd, up.bare).toFixed(2));
  // What the contract costs before any store: no aim, it says how much of the bare copy a store can keep.
  line('  ratio bare copy hashing and syncing as a store must / bare copy, upload (no aim)', pairedRatio(up.hashed, up.bare).toFixed(2));
  line(`bare HTTP file copy, download ${SIZE / MB} MB (MB/s, median)`, median(down.bare).toFixed(0));
  line(`svcd ${label}, artifact download (MB/s, median)`, median(down.svcd).toFixed(0));
  line(`ratio ${label} download / bare copy (${subject.aim})`, pairedRatio(down.svcd, down.bare).toFixed(2));
  return { bareUpload: median(up.bare) };
}

/**
 * The daemon's peak RSS growth while a 200 MB artifact streams in and back out. The daemon runs with its
 * V8 heap capped at HEAP_CAP_MB: that it streams the artifact at all shows the heap never holds it, and
 * the cap keeps the collector from letting garbage (bytes already sent) pile up, which on an uncapped
 * heap shows as tens of MB of RSS that are not kept.
 */
async function memoryFigures(line: Line, subject: Subject, files: Files): Promise<void> {
  const { internal, viewer, uploadUrl, downloadUrl } = endpoints(subject);
  const pid = subject.daemon.child.pid!;
  const label = `${subject.label}, heap cap ${HEAP_CAP_MB} MB`;
  // A fresh daemon's first requests load and compile their code: warmed up first, so that is not counted.
  await timedUpload(uploadUrl('warm'), files.small, SIZE, internal);
  await timedDownload(await downloadUrl('warm'), SIZE, viewer);
  const upGrowth = await peakRssGrowth(pid, () => timedUpload(uploadUrl('big'), files.big, BIG, internal));
  const bigUrl = await downloadUrl('big');
  const downGrowth = await peakRssGrowth(pid, () => timedDownload(bigUrl, BIG, viewer));
  line(`svcd ${label}: peak RSS growth, 200 MB upload (MB; / size)`, `${(upGrowth / MB).toFixed(1)}  (${(upGrowth / BIG).toFixed(3)})`);
  line(
    `svcd ${label}: peak RSS growth, 200 MB download (MB; / size)`,
    `${(downGrowth / MB).toFixed(1)}  (${(downGrowth / BIG).toFixed(3)})`,
  );
}

/** What the database allows: the database store's own read of the first 64 MB artifact, in this process. */
async function storeReadRate(databaseUrl: string): Promise<number> {
  const knex = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 2 } });
  try {
    const row = await knex('run_artifacts')
      .where({ size_bytes: SIZE, storage: 'database' })
      .first<{ id: string; run_id: string }>('id', 'run_id');
    const started = performance.now();
    let read = 0;
    for await (const chunk of await new DatabaseArtifactStore(knex).open({ runId: row!.run_id, artifactId: row!.id })) {
      read += (chunk as Buffer).length;
    }
    if (read !== SIZE) throw new Error(`read ${read} of ${SIZE} bytes`);
    return SIZE / MB / ((performance.now() - started) / 1000);
  } finally {
    await knex.destroy();
  }
}

/**
 * What the database allows: the database store's own writes of 64 MB (1 MiB buffers already in memory, as
 * a client's would arrive) into a run of `runId`, in this process, no HTTP and no hashing; each write's
 * chunks go after it. One pool throughout and a first write not counted, as the daemon's pool keeps its
 * connections: a new PostgreSQL backend took its first 64 MB at about half the rate of its later ones
 * (server side, `INSERT … SELECT` of 64 values of 1 MiB: 650-900 ms in a new session, 320-430 in one that
 * had done it before).
 */
async function storeWriteRates(databaseUrl: string, runId: string, rounds: number): Promise<number[]> {
  const knex = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 2 } });
  const store = new DatabaseArtifactStore(knex);
  const block = randomBytes(MB);
  const rates: number[] = [];
  try {
    for (let round = 0; round <= rounds; round += 1) {
      const ref = { runId, artifactId: randomUUID() };
      await settlePostgresAndDisk(knex);
      const started = performance.now();
      try {
        await store.write(
          ref,
          (async function* () {
            for (let i = 0; i < SIZE / MB; i += 1) yield block;
          })(),
        );
        if (round > 0) rates.push(SIZE / MB / ((performance.now() - started) / 1000));
      } finally {
        await store.remove(ref);
      }
    }
    return rates;
  } finally {
    await knex.destroy();
  }
}

interface Files {
  readonly small: string;
  readonly big: string;
}

async function seedPglite(dataDir: string): Promise<string> {
  const db = await openDatabase({ dataDir }, createLogger('warn'));
  try {
    return (await seedHeldRuns(db.knex))[0]!;
  } finally {
    await db.close();
  }
}

const daemonEnv = {
  SERVICE_LOG_LEVEL: 'warn',
  SERVICE_AUTH_DISABLED: 'true',
  SERVICE_INTERNAL_API_TOKEN: TOKEN,
  SERVICE_ARTIFACT_RUN_MAX_BYTES: String(64 * 1024 * MB),
};

/** One store's throughput figures, then its memory figures on a daemon whose heap is capped. */
async function storeFigures(
  line: Line,
  options: { label: string; aim: string; env: Record<string, string>; run: string; rounds: number; settle: () => Promise<void> },
  bare: Server,
  files: Files,
): Promise<{ bareUpload: number }> {
  const { label, aim, env, run } = options;
  const daemon = await startServer([DAEMON], await freePort(), '/ready', env);
  let figures: { bareUpload: number };
  try {
    figures = await throughputFigures(line, { label, aim, daemon, run }, bare, files, options.rounds, options.settle);
  } finally {
    // PGlite's directory has one user: each daemon stops before the next starts.
    await daemon.stop();
  }
  const capped = await startServer([CAPPED, DAEMON], await freePort(), '/ready', env);
  try {
    await memoryFigures(line, { label, aim, daemon: capped, run }, files);
  } finally {
    await capped.stop();
  }
  return figures;
}

/**
 * Artifacts: upload and download MB/s of the default store (the organization's default file repository,
 * a local one made on the first upload) on PGlite and on PostgreSQL, and of the database store
 * (SERVICE_ARTIFACT_STORE=database) beside what PostgreSQL alone writes and reads, each against a plain
 * Node HTTP server copying the same file to and from disk; and the daemon's peak RSS growth while a
 * 200 MB artifact streams through a daemon whose heap is capped well below its size. S3 is measured only
 * against a real store: s3rver, the tests' fake, is a single-threaded JS server writing every object twice.
 */
export async function artifactsBenchmark(line: (name: string, value: string) => void, options: ArtifactsBenchOptions): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'svc-bench-artifacts-'));
  const servers: Server[] = [];
  try {
    const files = { small: join(work, 'small.bin'), big: join(work, 'big.bin') };
    await randomFile(files.small, SIZE);
    await randomFile(files.big, BIG);
    const bare = await startServer([BARE_COPY], await freePort(), '/ready', { BENCH_FILES_DIR: work });
    servers.push(bare);

    const dataDir = join(work, 'data');
    await timeToReady([DAEMON], { ...daemonEnv, SERVICE_DATA_DIR: dataDir }, '/ready');
    const pgliteOptions = { aim: DEFAULT_AIM, rounds: options.rounds, settle: async () => settleDisk() };
    const pgliteEnv = { ...daemonEnv, SERVICE_DATA_DIR: dataDir };
    const pgliteRun = await seedPglite(dataDir);
    await storeFigures(line, { label: 'default store (PGlite)', env: pgliteEnv, run: pgliteRun, ...pgliteOptions }, bare, files);

    const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_artifacts');
    if (!scratch) return line('artifacts on PostgreSQL', `skipped (no server at ${options.postgresUrl})`);
    try {
      const pgEnv = { ...daemonEnv, SERVICE_DATA_DIR: join(work, 'data-pg'), SERVICE_DATABASE_URL: scratch.url };
      // The first start migrates the scratch database; the runs are seeded after it.
      await timeToReady([DAEMON], pgEnv, '/ready');
      const [repositoryRun, databaseRun] = await seedHeldRuns(scratch.db as Knex);
      const pgOptions = { aim: DEFAULT_AIM, rounds: options.rounds, settle: () => settlePostgresAndDisk(scratch.db as Knex) };
      await storeFigures(line, { label: 'default store (PostgreSQL)', env: pgEnv, run: repositoryRun!, ...pgOptions }, bare, files);
      const databaseEnv = { ...pgEnv, SERVICE_ARTIFACT_STORE: 'database' };
      const label = 'database store (PostgreSQL)';
      const databaseOptions = { ...pgOptions, label, aim: DATABASE_AIM, env: databaseEnv, run: databaseRun! };
      const { bareUpload } = await storeFigures(line, databaseOptions, bare, files);
      line('  database alone: the store reading a 64 MB artifact, no HTTP (MB/s)', (await storeReadRate(scratch.url)).toFixed(0));
      const alone = median(await storeWriteRates(scratch.url, databaseRun!, options.rounds));
      line('  database alone: the store writing a 64 MB artifact, no HTTP (MB/s, median)', alone.toFixed(0));
      line("  ratio database alone / bare copy (the database store's bound)", (alone / bareUpload).toFixed(2));
    } finally {
      await scratch.close();
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await rm(work, { recursive: true, force: true });
  }
}
