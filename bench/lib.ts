import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import type { Knex } from 'knex';

/** A port free on loopback right now, so a server can run with its request logging off and still be found. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

export interface Server {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a server process on `port` (passed as PORT and SERVICE_PORT) and resolves once `probePath` answers. */
export async function startServer(args: string[], port: number, probePath: string, env: Record<string, string> = {}): Promise<Server> {
  // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of every server process there (for finding where the time goes).
  // BENCH_NODE_FLAGS adds V8/Node flags NODE_OPTIONS refuses (e.g. --trace-deopt); BENCH_SERVER_STDOUT shows their output.
  const profile = [
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
  ];
  const child = spawn(process.execPath, [...profile, ...args], {
    env: { ...process.env, ...env, PORT: String(port), SERVICE_PORT: String(port) },
    stdio: ['ignore', process.env.BENCH_SERVER_STDOUT ? 'inherit' : 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`server exited with ${code}`))));
  for (;;) {
    const answered = await Promise.race([
      fetch(url + probePath).then(
        (r) => r.status === 200,
        () => false,
      ),
      exited,
    ]);
    if (answered) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    url,
    child,
    stop: () => new Promise((done) => (child.exitCode !== null ? done() : (child.once('exit', () => done()), child.kill('SIGTERM')))),
  };
}

/**
 * Writes every dirty page of the host to disk before a timed write. Without it, the page cache holds the
 * earlier rounds' hundreds of megabytes and the kernel's writeback of them lands on whichever upload is
 * running when it starts: that, not the subject, decided a round (measured: the same daemon 170 ms or
 * 480 ms for one 64 MB upload, by the amount of earlier data still dirty).
 */
export function settleDisk(): void {
  execFileSync('sync');
}

/**
 * `settleDisk` for a figure on PostgreSQL: a CHECKPOINT first. An earlier round's rows sit in
 * PostgreSQL's shared buffers, not in the page cache, so `sync` alone leaves them for the checkpointer or
 * a backend to write back during whichever upload comes next: the database store's own, the bare copy's,
 * or the next store's.
 */
export async function settlePostgresAndDisk(db: Knex): Promise<void> {
  await db.raw('CHECKPOINT');
  settleDisk();
}

/** Requests per second over loopback, bounded in connections and seconds. */
export async function requestsPerSecond(
  url: string,
  seconds: number,
  expectStatus: number,
  headers: Record<string, string> = {},
): Promise<number> {
  const result = await autocannon({ url, connections: 16, duration: seconds, pipelining: 1, headers });
  const statusKey = `${Math.floor(expectStatus / 100)}xx` as '2xx' | '5xx';
  if (result[statusKey] === 0) throw new Error(`no ${expectStatus} answers from ${url}`);
  return result.requests.average;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The median over rounds of `numerator[r] / denominator[r]`, each pair measured back to back: on a shared
 * host the load drifts between rounds, and a ratio of two medians can pair a quiet round with a busy one.
 */
export function pairedRatio(numerator: readonly number[], denominator: readonly number[]): number {
  return median(numerator.map((value, round) => value / denominator[round]!));
}

/** Milliseconds from spawning a process until `readyPath` answers 200. */
export async function timeToReady(args: string[], env: Record<string, string>, readyPath: string): Promise<number> {
  const started = performance.now();
  const server = await startServer(args, await freePort(), readyPath, env);
  const elapsed = performance.now() - started;
  await server.stop();
  return elapsed;
}

/** CPU milliseconds a process has used so far (Linux /proc; 0 where that is not readable). */
function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

const CLOCK_TICKS = 100;

/** Every PostgreSQL process of this host (the server and its backends), by command name. */
function postgresPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number)
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
        } catch {
          return false;
        }
      });
  } catch {
    return [];
  }
}

export interface CpuSplit {
  /** Microseconds of CPU per request: the measured server, every PostgreSQL process, this load generator. */
  readonly server: number;
  readonly postgres: number;
  readonly client: number;
}

/**
 * Starts counting CPU of `serverPid`, PostgreSQL and this process; the returned function divides what was
 * used by `requests`. Where a figure's time goes, for the docs; it is not a figure itself (with two cores
 * shared by all three, each one's share moves with the others').
 */
export function cpuMeter(serverPid: number): (requests: number) => CpuSplit {
  const postgresAtStart = new Map(postgresPids().map((pid) => [pid, processCpuMs(pid)]));
  // A backend that started meanwhile (a pool reconnecting) counts whole; one that ended is lost.
  const postgresSinceStart = () => postgresPids().reduce((sum, pid) => sum + processCpuMs(pid) - (postgresAtStart.get(pid) ?? 0), 0);
  const self = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const start = { server: processCpuMs(serverPid), client: self() };
  return (requests) => {
    const per = (ms: number) => (ms * 1000) / Math.max(1, requests);
    return { server: per(processCpuMs(serverPid) - start.server), postgres: per(postgresSinceStart()), client: per(self() - start.client) };
  };
}
