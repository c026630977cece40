import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Monitor } from '../src/shared/api/monitors.js';
import { runMonitorConnectivity, runMonitorStop } from '../src/worker/handlers/monitor.js';
import { runProbeConnectivity, runProbeDns, runProbeHttp } from '../src/worker/handlers/probe.js';
import { StepFailure, type StepContext, type StepResult } from '../src/worker/handlers/types.js';
import { runProbeWaitReachable } from '../src/worker/handlers/wait-reachable.js';
import type { MonitorCallbacks, MonitorChanges, MonitorSampleInput, NewMonitor } from '../src/worker/monitor-callbacks.js';
import { DaemonAnswerError } from '../src/worker/http-client.js';
import { DEFAULT_OUTBOUND, stepOutbound } from '../src/worker/outbound.js';
import { RunMonitors } from '../src/worker/monitoring/run-monitors.js';
import { connectivityChecker } from '../src/worker/probes/connectivity.js';
import { startDnsServer } from './helpers/dns-server.js';
import { RecordingCallbacks } from './helpers/worker-fakes.js';

const LOCAL = '11111111-1111-4111-8111-111111111111';
const NO_ADDRESS = '22222222-2222-4222-8222-222222222222';
const GONE = '33333333-3333-4333-8333-333333333333';
const DEVICES = { [LOCAL]: { name: 'local', hostname: '127.0.0.1' }, [NO_ADDRESS]: { name: 'bare', hostname: null } };

let openPort: number;
let closedPort: number;
let httpPort: number;
const servers: { close(): unknown }[] = [];
/** No probe sends a notification: the delivery is there because every step context has one. */
const outbound = stepOutbound(DEFAULT_OUTBOUND);

beforeAll(async () => {
  const tcp = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  openPort = (tcp.address() as AddressInfo).port;
  servers.push(tcp);
  const closing = createServer();
  await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
  closedPort = (closing.address() as AddressInfo).port;
  await new Promise((resolve) => closing.close(resolve));
  const http: Server = createHttpServer((request, response) => {
    if (request.url === '/health') return response.writeHead(200).end('healthy');
    if (request.url === '/moved') return response.writeHead(302, { location: '/health' }).end();
    if (request.url === '/away') return response.writeHead(302, { location: 'http://elsewhere.example/' }).end();
    response.writeHead(404).end('nothing here');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  httpPort = (http.address() as AddressInfo).port;
  servers.push(http);
});

afterAll(() => {
  for (const server of servers) server.close();
  outbound.close();
});

function context(
  handler: string,
  config: Record<string, unknown>,
  options: { targets?: string[]; monitors?: RunMonitors; signal?: AbortSignal; stepId?: string } = {},
): StepContext {
  return {
    run: {
      run_id: '00000000-0000-4000-8000-000000000001',
      attempt: 1,
      name: 'probe run',
      flow_name: 'probes',
      workflow_id: 'wf',
      org_id: 'org',
      params: {},
      targets: { devices: options.targets ?? [LOCAL] },
      target_devices: DEVICES,
    },
    step: { id: options.stepId ?? 'check', handler, config },
    config,
    rawConfig: config,
    signal: options.signal ?? new AbortController().signal,
    emit: () => {},
    waitingOnChild: () => {},
    setRunVars: async () => {},
    callbacks: new RecordingCallbacks(),
    monitors: options.monitors ?? new RunMonitors(undefined),
    notifications: outbound.notifications,
  };
}

/** The StepFailure a handler threw (its code and details), or a test failure if it succeeded. */
async function failure(result: Promise<StepResult>): Promise<StepFailure> {
  try {
    await result;
  } catch (error) {
    expect(error).toBeInstanceOf(StepFailure);
    return error as StepFailure;
  }
  throw new Error('the step succeeded');
}

type Failed = { device_id: string | null; code: string }[];

describe('probe.connectivity', () => {
  it('tcp_connect passes for a target listening on the port, with its latency', async () => {
    const { outputs } = await runProbeConnectivity(context('probe.connectivity', { port: openPort }));
    expect(outputs).toMatchObject({ check_type: 'tcp_connect', port: openPort, passed: 1, failed: 0 });
    const [target] = outputs.targets as { device_id: string; ok: boolean; latency_ms: number; attempts: number }[];
    expect(target).toMatchObject({ device_id: LOCAL, ok: true, attempts: 1 });
    expect(typeof target!.latency_ms).toBe('number');
  });

  it('fails probe_failed naming each failed target and its code: refused, no address, gone', async () => {
    const error = await failure(
      runProbeConnectivity(context('probe.connectivity', { port: closedPort, attempts: 2 }, { targets: [LOCAL, NO_ADDRESS, GONE] })),
    );
    expect(error.code).toBe('probe_failed');
    expect((error.details.failed_targets as Failed).map((f) => [f.device_id, f.code])).toEqual([
      [LOCAL, 'connection_refused'],
      [NO_ADDRESS, 'no_address'],
      [GONE, 'device_not_found'],
    ]);
    const outputs = error.details.outputs as { targets: { attempts: number }[] };
    expect(outputs.targets[0]!.attempts).toBe(2);
  });

  it('http_health asks url_path (default /health) and passes on 2xx/3xx only', async () => {
    await expect(runProbeConnectivity(context('probe.connectivity', { check_type: 'http_health', port: httpPort }))).resolves.toMatchObject(
      {
        outputs: { passed: 1 },
      },
    );
    const error = await failure(
      runProbeConnectivity(context('probe.connectivity', { check_type: 'http_health', port: httpPort, url_path: 'missing' })),
    );
    expect((error.details.failed_targets as Failed)[0]!.code).toBe('unexpected_status');
  });

  it('dns_resolve looks up the hostname given, or each target address', async () => {
    const { outputs } = await runProbeConnectivity(context('probe.connectivity', { check_type: 'dns_resolve', hostname: 'localhost' }));
    expect(outputs).toMatchObject({ check_type: 'dns_resolve', passed: 1 });
    expect((outputs.targets as { name: string }[])[0]!.name).toBe('localhost');
  });

  it('refuses a configured SOCKS proxy, a run without targets, and a rendered value out of range', async () => {
    const proxy = context('probe.connectivity', { port: openPort, socks_proxy: 'socks5://127.0.0.1:1080' });
    expect((await failure(runProbeConnectivity(proxy))).code).toBe('socks_proxy_unsupported');
    expect((await failure(runProbeConnectivity(context('probe.connectivity', {}, { targets: [] })))).code).toBe('no_targets');
    expect((await failure(runProbeConnectivity(context('probe.connectivity', { port: 0 })))).code).toBe('invalid_config');
  });

  it('icmp_ping runs the ping on PATH, and fails check_unavailable without one', async () => {
    const config = { checkType: 'icmp_ping' as const, port: 22, timeoutMs: 1000, urlPath: '', socksProxy: '' };
    expect(() => connectivityChecker(config, '')).toThrow(expect.objectContaining({ code: 'check_unavailable' }));
    const bin = mkdtempSync(join(tmpdir(), 'svc-ping-'));
    writeFileSync(join(bin, 'ping'), '#!/bin/sh\necho "64 bytes from $7: icmp_seq=1 ttl=64 time=0.042 ms"\n');
    chmodSync(join(bin, 'ping'), 0o755);
    const outcome = await connectivityChecker(config, bin)(
      { deviceId: LOCAL, name: 'local', host: '127.0.0.1' },
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({ ok: true, latencyMs: 0.042 });
  });
});

describe('probe.http', () => {
  const http = (config: Record<string, unknown>) => runProbeHttp(context('probe.http', { port: httpPort, ...config }));

  it('passes on an expected status and body, following a redirect on the same host', async () => {
    const { outputs } = await http({ path: 'moved', body_contains: 'healthy' });
    expect(outputs).toMatchObject({ passed: 1, scheme: 'http', port: httpPort });
    expect((outputs.targets as { status: number }[])[0]!.status).toBe(200);
  });

  it('asserts the redirect itself when not following, and fails an unexpected status or body', async () => {
    await expect(http({ path: '/moved', follow_redirects: false, expected_status: '302' })).resolves.toBeDefined();
    const codes = async (config: Record<string, unknown>) => ((await failure(http(config))).details.failed_targets as Failed)[0]!.code;
    expect(await codes({ path: '/nowhere' })).toBe('unexpected_status');
    expect(await codes({ path: '/health', body_contains: 'sick' })).toBe('body_mismatch');
    expect(await codes({ path: '/away' })).toBe('redirect_off_target');
    expect(await codes({ port: closedPort })).toBe('connection_refused');
  });
});

/** A self-signed certificate and its key, made by the system's openssl; undefined (the test skips) without one. */
function selfSignedCertificate(): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];
  try {
    execFileSync('openssl', ['req', '-x509', ...curve, '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'], {
      stdio: 'ignore',
    });
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('probe.http over https', () => {
  const tls = selfSignedCertificate();
  let httpsPort = 0;

  beforeAll(async () => {
    if (!tls) return;
    const server = createHttpsServer(tls, (_request, response) => response.writeHead(200).end('secure'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    httpsPort = (server.address() as AddressInfo).port;
    servers.push(server);
  });

  it.skipIf(!tls)(
    'fails tls_error on a certificate it cannot verify, and passes it with verify_tls false (skips without openssl)',
    async () => {
      const https = (config: Record<string, unknown>) =>
        runProbeHttp(context('probe.http', { scheme: 'https', port: httpsPort, body_contains: 'secure', ...config }));
      const refused = await failure(https({}));
      expect((refused.details.failed_targets as Failed)[0]!.code).toBe('tls_error');
      const { outputs } = await https({ verify_tls: false });
      expect(outputs).toMatchObject({ passed: 1, scheme: 'https', port: httpsPort });
    },
  );
});

describe('probe.dns', () => {
  it('queries the resolver given and checks every expected value', async () => {
    const dns = await startDnsServer({ 'router.lab.test': ['10.1.2.3', '10.1.2.4'] });
    try {
      const base = { query_name: 'router.lab.test', resolver: dns.address };
      const { outputs } = await runProbeDns(context('probe.dns', { ...base, expected_values: ['10.1.2.4'] }));
      expect(outputs).toMatchObject({ record_type: 'A', passed: 1 });
      expect((outputs.targets as { values: string[] }[])[0]!.values.sort()).toEqual(['10.1.2.3', '10.1.2.4']);
      const wrong = await failure(runProbeDns(context('probe.dns', { ...base, expected_values: ['10.9.9.9'] })));
      expect((wrong.details.failed_targets as Failed)[0]!.code).toBe('unexpected_values');
      const unknown = await failure(runProbeDns(context('probe.dns', { ...base, query_name: 'nothing.lab.test' })));
      expect((unknown.details.failed_targets as Failed)[0]!.code).toBe('name_not_resolved');
    } finally {
      await dns.close();
    }
  });
});

describe('probe.wait_reachable', () => {
  it('passes a target that answers (a refusal is an answer) and fails one without an address', async () => {
    const config = { max_wait_seconds: 5, stable_seconds: 0, poll_interval: 1 };
    await expect(runProbeWaitReachable(context('probe.wait_reachable', config))).resolves.toMatchObject({ outputs: { passed: 1 } });
    const error = await failure(runProbeWaitReachable(context('probe.wait_reachable', config, { targets: [LOCAL, NO_ADDRESS] })));
    expect((error.details.failed_targets as Failed).map((f) => f.code)).toEqual(['no_address']);
  });
});

/** Monitor callbacks that keep what they are told, as the daemon's routes would. */
class RecordingMonitors implements MonitorCallbacks {
  readonly opened: NewMonitor[] = [];
  readonly samples: MonitorSampleInput[] = [];
  readonly updates: { id: string; changes: MonitorChanges }[] = [];

  async open(monitor: NewMonitor): Promise<Monitor> {
    this.opened.push(monitor);
    return { id: `m-${this.opened.length}`, monitor_key: monitor.monitor_key } as Monitor;
  }
  async update(id: string, changes: MonitorChanges): Promise<Monitor> {
    this.updates.push({ id, changes });
    return { id } as Monitor;
  }
  async postSamples(samples: readonly MonitorSampleInput[]) {
    this.samples.push(...samples);
    return { accepted: samples.length, duplicates: 0 };
  }
}

describe('monitor.connectivity', () => {
  it('count mode: opens a monitor per target, samples it count times in the background, then closes it with a summary', async () => {
    const recorder = new RecordingMonitors();
    const monitors = new RunMonitors(recorder);
    const config = { port: openPort, interval_ms: 100, count: 3 };
    const { outputs } = await runMonitorConnectivity(context('monitor.connectivity', config, { targets: [LOCAL, NO_ADDRESS], monitors }));
    expect((outputs.monitors as { monitor_id: string }[]).map((m) => m.monitor_id)).toEqual(['m-1', 'm-2']);
    expect(recorder.opened.map((m) => m.kind)).toEqual(['connectivity.tcp_connect', 'connectivity.tcp_connect']);
    await monitors.settle(true);
    const of = (id: string) => recorder.samples.filter((s) => s.monitor_id === id);
    expect(of('m-1').map((s) => [s.seq, s.status])).toEqual([
      [1, 'ok'],
      [2, 'ok'],
      [3, 'ok'],
    ]);
    expect(of('m-2').map((s) => s.status)).toEqual(['no_address', 'no_address', 'no_address']);
    expect(recorder.updates.map((u) => [u.id, u.changes.status, (u.changes.summary as { samples: number }).samples])).toEqual([
      ['m-1', 'closed', 3],
      ['m-2', 'closed', 3],
    ]);
  });

  it('duration mode: samples every interval until the next would pass duration_sec, then closes', async () => {
    const recorder = new RecordingMonitors();
    const monitors = new RunMonitors(recorder);
    const config = { port: openPort, interval_ms: 250, schedule_mode: 'duration', duration_sec: 1 };
    const { outputs } = await runMonitorConnectivity(context('monitor.connectivity', config, { monitors }));
    expect(outputs).toMatchObject({ schedule_mode: 'duration' });
    await monitors.settle(true);
    // Ticks are at least interval_ms apart and none starts past the duration: at most 1000 / 250 + 1.
    expect(recorder.samples.length).toBeGreaterThanOrEqual(1);
    expect(recorder.samples.length).toBeLessThanOrEqual(5);
    expect(recorder.updates.map((u) => [u.changes.status, (u.changes.summary as { ended_by: string }).ended_by])).toEqual([
      ['closed', 'duration'],
    ]);
  });

  it('until_join (monitor.start): samples until monitor.stop, which returns the summaries', async () => {
    const recorder = new RecordingMonitors();
    const monitors = new RunMonitors(recorder);
    await runMonitorConnectivity(context('monitor.start', { port: openPort, interval_ms: 100 }, { monitors, stepId: 'watch' }));
    while (recorder.samples.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    const { outputs } = await runMonitorStop(context('monitor.stop', { monitor_step: 'watch' }, { monitors }));
    const [stopped] = outputs.stopped as { step_id: string; monitor_id: string; summary: { samples: number } }[];
    expect(stopped).toMatchObject({ step_id: 'watch', monitor_id: 'm-1' });
    expect(stopped!.summary.samples).toBeGreaterThanOrEqual(2);
    expect(recorder.updates[0]!.changes).toMatchObject({ status: 'closed', summary: { ended_by: 'monitor.stop' } });
  });

  it('fails monitor_run_limit when the daemon refuses a monitor for the run cap; another refusal goes on as it came', async () => {
    // The daemon's answer past SERVICE_MONITOR_MAX_PER_RUN, after the first monitor of the step.
    const refusing = (code: string, status: number) =>
      new (class extends RecordingMonitors {
        override async open(monitor: NewMonitor): Promise<Monitor> {
          if (this.opened.length === 1) throw new DaemonAnswerError('POST', '/api/v1/monitors', status, code, { code, limit: 1 });
          return super.open(monitor);
        }
      })();
    const config = { port: openPort, interval_ms: 100, count: 1 };
    const capped = refusing('monitor_run_limit', 413);
    const error = await failure(
      runMonitorConnectivity(context('monitor.connectivity', config, { targets: [LOCAL, NO_ADDRESS], monitors: new RunMonitors(capped) })),
    );
    expect([error.code, error.details]).toEqual(['monitor_run_limit', { limit: 1, targets: 2 }]);
    expect(capped.samples).toEqual([]);
    const notHeld = refusing('run_not_held', 409);
    await expect(
      runMonitorConnectivity(context('monitor.connectivity', config, { targets: [LOCAL, NO_ADDRESS], monitors: new RunMonitors(notHeld) })),
    ).rejects.toBeInstanceOf(DaemonAnswerError);
  });

  it('fails monitors_unavailable without monitor callbacks', async () => {
    expect((await failure(runMonitorConnectivity(context('monitor.connectivity', { port: openPort })))).code).toBe('monitors_unavailable');
  });
});
