import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import autocannon from 'autocannon';

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
  const child = spawn(process.execPath, [...profile, ...args], { env: { ...process.env, ...env, PORT: String(port), SERVICE_PORT: String(port) }, stdio: ['ignore', process.env.BENCH_SERVER_STDOUT ? 'inherit' : 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`server exited with ${code}`))));
  for (;;) {
    const answered = await Promise.race([fetch(url + probePath).then((r) => r.status === 200, () => false), exited]);
    if (answered) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    url,
    child,
    stop: () => new Promise((done) => (child.exitCode !== null ? done() : (child.once('exit', () => done()), child.kill('SIGTERM')))),
  };
}

/** Requests per second over loopback, bounded in connections and seconds. */
export async function requestsPerSecond(url: string, seconds: number, expectStatus: number, headers: Record<string, string> = {}): Promise<number> {
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
