import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib.js';

const CLI = fileURLToPath(new URL('../../bin/svc', import.meta.url));
const RUNS = 7;

function wallMs(args: string[], env: Record<string, string>): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'ignore'] });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
  return performance.now() - started;
}

/**
 * Wall time of the built CLI for `--version`, `--help` and `whoami --json` (against a running daemon,
 * with a token in SVC_TOKEN), each as a ratio to `node -e 0` measured in the same run.
 */
export async function cliStartupBenchmark(line: (name: string, value: string) => void, whoami?: { server: string; token: string }): Promise<void> {
  const config = await mkdtemp(join(tmpdir(), 'svc-bench-cli-'));
  const env = { XDG_CONFIG_HOME: config, NO_COLOR: '1' };
  try {
    // The aim (issue 8) covers start-up alone; whoami adds a request to a daemon, so it has none.
    const cases: [string, string[], Record<string, string>, string][] = [
      ['node -e 0', ['-e', '0'], {}, ''],
      ['svc --version', [CLI, '--version'], env, ', aim <= 2.5'],
      ['svc --help', [CLI, '--help'], env, ', aim <= 2.5'],
    ];
    if (whoami) cases.push(['svc whoami --json', [CLI, 'whoami', '--json', '--server', whoami.server], { ...env, SVC_TOKEN: whoami.token }, '']);
    const times = cases.map(() => [] as number[]);
    for (let run = 0; run < RUNS; run += 1) cases.forEach(([, args, e], i) => times[i]!.push(wallMs(args, e)));
    const baseline = median(times[0]!);
    line('node -e 0 (ms, median)', baseline.toFixed(0));
    cases.slice(1).forEach(([name, , , aim], i) => {
      const ms = median(times[i + 1]!);
      line(`${name} (ms, median; ratio to node -e 0${aim})`, `${ms.toFixed(0)} (${(ms / baseline).toFixed(2)})`);
    });
  } finally {
    await rm(config, { recursive: true, force: true });
  }
}
