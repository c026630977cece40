import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDevIdp } from '../src/daemon/dev-idp/index.js';
import { freePort, median, startServer } from './lib.js';

const CLI = fileURLToPath(new URL('../../bin/svc', import.meta.url));
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 9);

function wallMs(args: string[], env: Record<string, string>): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return performance.now() - started;
}

/** A stored profile holding `token`, as `svc login --with-token` leaves it: whoami reads it from the file. */
async function storeCredential(configHome: string, server: string, token: string): Promise<void> {
  const profile = {
    server,
    issuer: null,
    client_id: null,
    method: 'token',
    access_token: token,
    refresh_token: null,
    expires_at: null,
    token_type: 'Bearer',
    scope: null,
    username: null,
    updated_at: new Date().toISOString(),
  };
  await mkdir(join(configHome, 'svc'), { recursive: true, mode: 0o700 });
  await writeFile(join(configHome, 'svc', 'credentials.json'), JSON.stringify({ version: 1, profiles: { default: profile } }), {
    mode: 0o600,
  });
}

/**
 * Wall time of the built CLI for `--version`, `--help` and `whoami --json` (a stored credential, against
 * a running daemon), against `node -e 0` and a bare node process making the same request, measured in
 * the same run. The aim for an authenticated command: at most 2 x `node -e 0` plus the round trip,
 * the round trip being what the bare node process spends beyond `node -e 0` (loading fetch included).
 */
export async function cliStartupBenchmark(
  line: (name: string, value: string) => void,
  daemon: { script: string; env: Record<string, string> },
): Promise<void> {
  const idp = await startDevIdp();
  const server = await startServer([daemon.script], await freePort(), '/ready', { ...daemon.env, SERVICE_IDP_ISSUER: idp.issuer });
  const config = await mkdtemp(join(tmpdir(), 'svc-bench-cli-'));
  try {
    const token = await idp.mintAccessToken({ expiresInSeconds: 3600 });
    await storeCredential(config, server.url, token);
    const env = { XDG_CONFIG_HOME: config, NO_COLOR: '1' };
    const fetchMe = `const r = await fetch(${JSON.stringify(`${server.url}/auth/me`)}, { headers: { authorization: 'Bearer ' + process.env.BENCH_TOKEN } }); if (!r.ok) process.exit(1); await r.text();`;
    const cases: [string, string[], Record<string, string>][] = [
      ['node -e 0', ['-e', '0'], {}],
      ['node, one GET /auth/me', ['--input-type=module', '-e', fetchMe], { BENCH_TOKEN: token }],
      ['svc --version', [CLI, '--version'], env],
      ['svc --help', [CLI, '--help'], env],
      ['svc whoami --json', [CLI, 'whoami', '--json'], env],
    ];
    // The IdP answers from this process, which spawnSync blocks: the daemon fetches its keys now, not mid-run.
    const warm = await fetch(`${server.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    if (!warm.ok) throw new Error(`GET /auth/me answered ${warm.status}`);
    const times = cases.map(() => [] as number[]);
    for (let run = 0; run < RUNS; run += 1) cases.forEach(([, args, e], i) => times[i]!.push(wallMs(args, e)));
    const [node, request, version, help, whoami] = times.map(median) as [number, number, number, number, number];
    const roundTrip = request - node;
    const aim = 2 * node + roundTrip;
    line('node -e 0 (ms, median)', node.toFixed(0));
    line('node, one GET /auth/me (ms, median; minus node -e 0)', `${request.toFixed(0)} (round trip ${roundTrip.toFixed(0)})`);
    line('svc --version (ms, median; ratio to node -e 0, aim <= 2.5)', `${version.toFixed(0)} (${(version / node).toFixed(2)})`);
    line('svc --help (ms, median; ratio to node -e 0, aim <= 2.5)', `${help.toFixed(0)} (${(help / node).toFixed(2)})`);
    line('svc whoami --json, stored credential (ms, median)', whoami.toFixed(0));
    line('ratio whoami / (2 x node -e 0 + round trip) (aim <= 1.0)', (whoami / aim).toFixed(2));
  } finally {
    await server.stop();
    await idp.stop();
    await rm(config, { recursive: true, force: true });
  }
}
