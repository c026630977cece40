import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runSvc } from './helpers/cli.js';

/**
 * `svc webhooks send` as built, against a stand-in trigger route that checks the signature with
 * node:crypto alone (as the daemon's contract says, not through the shared signing module).
 */
const SECRET = 'whsec-e2e-3c7f0b';
const BEARER = 'tok-e2e-91d2';
const TOKEN = 'pXk3S0w8M6rS9h8Yc7JH2zq0wY5mF1dQ4uL2nV8bT6e';
const DELIVERY = '0d4e7a52-5a1e-4a8e-9d4e-1b2c3d4e5f60';
const RUN = '1e5f8b63-6b2f-4b9f-8e5f-2c3d4e5f6a71';
const FLOW = '2f6a9c74-7c3a-4cae-9f6a-3d4e5f6a7b82';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

let server: Server;
let base: string;
let configHome: string;
let seen: Seen[] = [];

function validSignature(headers: IncomingHttpHeaders, body: Buffer): boolean {
  const timestamp = headers['x-service-timestamp'];
  const signature = headers['x-service-signature'];
  if (typeof timestamp !== 'string' || typeof signature !== 'string' || !/^\d+$/.test(timestamp) || !/^[0-9a-f]{64}$/.test(signature))
    return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', SECRET).update(`${timestamp}.`).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

function answer(headers: IncomingHttpHeaders, url: string, body: Buffer): [number, Record<string, unknown>, Record<string, string>?] {
  const problem = (status: number, code: string, extra: Record<string, unknown> = {}) => ({
    type: `urn:svc:problem:${code}`,
    title: 'refused',
    status,
    code,
    detail: `refused: ${code}`,
    request_id: 'req-e2e-1',
    ...extra,
  });
  if (url.endsWith('/hooks/unavailable')) return [503, problem(503, 'secret_backend_unavailable')];
  if (url.endsWith('/hooks/busy')) return [429, problem(429, 'rate_limited'), { 'retry-after': '7' }];
  if (!url.endsWith(`/hooks/${TOKEN}`)) return [404, problem(404, 'resource_not_found')];
  const authorized = headers.authorization !== undefined ? headers.authorization === `Bearer ${BEARER}` : validSignature(headers, body);
  if (!authorized) return [401, problem(401, 'webhook_auth_failed', { reason: 'bad_signature' })];
  if (headers['x-idempotency-key'] === 'seen-before')
    return [409, problem(409, 'duplicate_delivery', { delivery_id: DELIVERY, run_id: RUN })];
  return [
    202,
    {
      delivery_id: DELIVERY,
      triggered_runs: [
        {
          target_type: 'flow',
          target_id: FLOW,
          flow_id: FLOW,
          target_name: 'Deploy',
          flow_name: 'Deploy',
          run_id: RUN,
          workflow_id: `run-${RUN}`,
        },
      ],
    },
  ];
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const [status, payload, headers] = answer(req.headers, req.url!, body);
      res.writeHead(status, { 'content-type': status < 300 ? 'application/json' : 'application/problem+json', ...headers });
      res.end(JSON.stringify(payload));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  configHome = await mkdtemp(join(tmpdir(), 'svc-webhooks-send-'));
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (configHome) await rm(configHome, { recursive: true, force: true });
});
beforeEach(() => {
  seen = [];
});

/** A logged-in user's token in the environment must never travel with a webhook. */
const svc = (args: string[], env: Record<string, string> = {}, stdin = '') =>
  runSvc(['webhooks', 'send', ...args], { configHome, env: { SVC_TOKEN: 'personal-credential', ...env }, stdin });

describe('svc webhooks send: signed', () => {
  it("signs the exact bytes it sends, to <server>/hooks/<token>, without the caller's credential", async () => {
    const data = '{"params": {"ticket": "CHG-42", "note": "grüße"}}';
    const run = await svc(['--server', base, '--token', TOKEN, '--data', data, '--secret-env', 'HOOK_SECRET'], { HOOK_SECRET: SECRET });
    expect(run.code, run.stderr).toBe(0);
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe(`/hooks/${TOKEN}`);
    expect(request!.body.equals(Buffer.from(data))).toBe(true);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.headers['x-idempotency-key']).toBeUndefined();
    expect(run.stdout).toMatch(new RegExp(`delivery_id:\\s+${DELIVERY}`));
    expect(run.stdout).toMatch(new RegExp(`run_id:\\s+${RUN}`));
  });

  it('takes the full URL, a payload file, a secret file and an idempotency key; --json prints the body', async () => {
    const payload = join(configHome, 'payload.json');
    const secret = join(configHome, 'secret.txt');
    await writeFile(payload, '{"related_targets": {"leaf": [{"provider_id": "netbox:dc1", "external_id": "17"}]}}\n');
    await writeFile(secret, `${SECRET}\n`, { mode: 0o600 });
    const run = await svc([
      '--url',
      `${base}/api/hooks/${TOKEN}`,
      '--file',
      payload,
      '--secret-file',
      secret,
      '--idempotency-key',
      'evt-1',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(seen[0]!.url).toBe(`/api/hooks/${TOKEN}`);
    expect(seen[0]!.headers['x-idempotency-key']).toBe('evt-1');
    expect(seen[0]!.body.toString()).toMatch(/\n$/);
    expect(JSON.parse(run.stdout)).toMatchObject({ delivery_id: DELIVERY, triggered_runs: [{ run_id: RUN }] });
  });

  it('signs with the --timestamp given', async () => {
    const timestamp = String(Math.floor(Date.now() / 1000) - 100);
    const run = await svc(['--server', base, '--token', TOKEN, '--data', '{}', '--secret-env', 'S', '--timestamp', timestamp], {
      S: SECRET,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(seen[0]!.headers['x-service-timestamp']).toBe(timestamp);
  });

  it('reads the payload from standard input with --file -, and the server from SVC_SERVER', async () => {
    const run = await svc(['--token', TOKEN, '--file', '-', '--secret-env', 'S'], { S: SECRET, SVC_SERVER: base }, '{"a": 1}');
    expect(run.code, run.stderr).toBe(0);
    expect(seen[0]!.body.toString()).toBe('{"a": 1}');
  });
});

describe('svc webhooks send: bearer', () => {
  it('sends Authorization: Bearer from the variable, and no signature', async () => {
    const run = await svc(['--server', base, '--token', TOKEN, '--data', '{}', '--bearer-env', 'HOOK_TOKEN'], { HOOK_TOKEN: BEARER });
    expect(run.code, run.stderr).toBe(0);
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${BEARER}`);
    expect(seen[0]!.headers['x-service-signature']).toBeUndefined();
  });
});

describe('svc webhooks send: refusals', () => {
  it('exits 4 with the problem code when the signature is refused', async () => {
    const run = await svc(['--server', base, '--token', TOKEN, '--data', '{}', '--secret-env', 'S'], { S: 'not-the-secret' });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('code: webhook_auth_failed');
    expect(run.stderr).toContain('reason: bad_signature');
    expect(run.stderr).toContain('request id: req-e2e-1');
    expect(run.stderr).not.toContain('svc login');
    expect(run.stdout).toBe('');
  });

  it('exits 1 on a duplicate, naming the first delivery, and prints the body with --json', async () => {
    const run = await svc(
      ['--server', base, '--token', TOKEN, '--data', '{}', '--secret-env', 'S', '--idempotency-key', 'seen-before', '--json'],
      { S: SECRET },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('code: duplicate_delivery');
    expect(run.stderr).toContain(DELIVERY);
    expect(JSON.parse(run.stdout)).toMatchObject({ code: 'duplicate_delivery', delivery_id: DELIVERY });
  });

  it('exits 3 for an unknown token, 6 for a 5xx, and 1 with Retry-After for a 429', async () => {
    const unknown = await svc(['--server', base, '--token', 'no-such-token', '--data', '{}', '--secret-env', 'S'], { S: SECRET });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('code: resource_not_found');
    const unavailable = await svc(['--server', base, '--token', 'unavailable', '--data', '{}', '--secret-env', 'S'], { S: SECRET });
    expect(unavailable.code).toBe(6);
    const busy = await svc(['--server', base, '--token', 'busy', '--data', '{}', '--secret-env', 'S'], { S: SECRET });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('retry after 7 s');
  });

  it('refuses bad usage with exit 2 and sends nothing', async () => {
    const cases: [string[], Record<string, string>][] = [
      [['--server', base, '--token', TOKEN, '--data', 'not json', '--secret-env', 'S'], { S: SECRET }],
      [['--server', base, '--token', TOKEN, '--url', `${base}/hooks/${TOKEN}`, '--data', '{}'], {}],
      [['--server', base, '--data', '{}'], {}],
      [['--server', base, '--token', TOKEN], {}],
      [['--server', base, '--token', TOKEN, '--data', '{}', '--secret-env', 'S', '--bearer-env', 'B'], { S: SECRET, B: BEARER }],
      [['--server', base, '--token', TOKEN, '--data', '{}', '--secret-env', 'UNSET_VARIABLE'], {}],
      [['--server', base, '--token', TOKEN, '--data', '{}', '--secret-env', 'S', '--timestamp', '1e9'], { S: SECRET }],
      [['--server', base, '--token', TOKEN, '--data', '{}', '--bearer-env', 'B', '--timestamp', '1700000000'], { B: BEARER }],
      [['--server', base, '--token', '../admin', '--data', '{}'], {}],
      [['--token', TOKEN, '--data', '{}'], {}],
    ];
    for (const [args, env] of cases) {
      const run = await svc(args, env);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
    }
    expect(seen).toHaveLength(0);
  });

  it('does not echo a secret mistakenly given as --secret-env', async () => {
    const run = await svc(['--server', base, '--token', TOKEN, '--data', '{}', '--secret-env', 's3cr3t-value!']);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain('s3cr3t-value!');
  });

  it('says the secret never goes in a flag, in its help', async () => {
    const run = await svc(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('never from a flag value');
  });
});
