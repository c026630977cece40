import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpRunCallbacks } from '../src/worker/callbacks.js';
import { DaemonAnswerError, DaemonUnreachableError, InternalHttp } from '../src/worker/http-client.js';
import { retryDelayMs, type RetryPolicy } from '../src/worker/retry.js';

const FAST: RetryPolicy = { attempts: 5, maxElapsedMs: 5_000, baseDelayMs: 5, maxDelayMs: 20 };

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server | undefined;
afterEach(async () => {
  server?.close();
  server = undefined;
});

/** A server answering each request with the next of `answers` (the last one repeats). */
async function serve(answers: { status: number; body?: unknown }[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const answer = answers[Math.min(seen.length - 1, answers.length - 1)]!;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

describe('InternalHttp', () => {
  it('retries 503, 502, 504 and 429, then answers', async () => {
    const { url, seen } = await serve([
      { status: 503 },
      { status: 502 },
      { status: 504 },
      { status: 429 },
      { status: 200, body: { ok: true } },
    ]);
    const http = new InternalHttp(url, 'tok', FAST);
    expect(await http.call('GET', '/internal/x')).toEqual({ ok: true });
    expect(seen).toHaveLength(5);
    expect(seen.every((s) => s.headers['x-internal-token'] === 'tok')).toBe(true);
  });

  it('never retries another 4xx, and says 409 run_not_held with its code', async () => {
    const { url, seen } = await serve([{ status: 409, body: { code: 'run_not_held' } }]);
    const error = await new InternalHttp(url, 'tok', FAST).call('POST', '/internal/x', { body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DaemonAnswerError);
    expect(error).toMatchObject({ status: 409, code: 'run_not_held' });
    expect(seen).toHaveLength(1);
  });

  it('gives up within its attempts on a daemon that stays unavailable', async () => {
    const { url, seen } = await serve([{ status: 503 }]);
    const error = await new InternalHttp(url, undefined, { ...FAST, attempts: 3 }).call('GET', '/x').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503 });
    expect(seen).toHaveLength(3);
    expect(seen[0]!.headers['x-internal-token']).toBeUndefined();
  });

  it('retries a refused connection, then reports the daemon unreachable', async () => {
    const { url } = await serve([{ status: 200 }]);
    server!.close();
    await once(server!, 'close');
    const error = await new InternalHttp(url, 'tok', { ...FAST, attempts: 2 }).call('GET', '/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DaemonUnreachableError);
  });

  it('draws each wait within the exponential ceiling, and honours Retry-After within the cap', () => {
    const policy: RetryPolicy = { attempts: 10, maxElapsedMs: 60_000, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(retryDelayMs(policy, 1, null, () => 0.999)).toBeLessThan(100);
    expect(retryDelayMs(policy, 3, null, () => 0.999)).toBeLessThan(400);
    expect(retryDelayMs(policy, 9, null, () => 0.999)).toBeLessThan(1_000);
    expect(retryDelayMs(policy, 1, '0.5')).toBe(500);
    expect(retryDelayMs(policy, 1, '60')).toBe(1_000);
  });
});

describe('HttpRunCallbacks', () => {
  it('fences every mutating callback with the worker and attempt', async () => {
    const { url, seen } = await serve([
      { status: 201, body: { id: 'sr-1' } },
      { status: 200, body: {} },
    ]);
    const callbacks = new HttpRunCallbacks(new InternalHttp(url, 'tok', FAST), 'run-1', 'w-1', 3);
    await callbacks.createStepRun({ step_id: 'a', handler: 'general.noop', status: 'running' });
    await callbacks.patchStepRun('sr-1', { status: 'succeeded' });
    await callbacks.postEvents([{ worker_seq: 1, type: 'log', data: {} }]);
    await callbacks.putRunVars({ a: 1 });
    await callbacks.finishRun({ status: 'succeeded', outputs: {} });
    await callbacks.cancelChildRun('child-1', 'parent run cancelled');
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /internal/runs/run-1/step-runs',
      'PATCH /internal/step-runs/sr-1',
      'POST /internal/runs/run-1/events',
      'PUT /internal/runs/run-1/run-vars',
      'PATCH /internal/runs/run-1',
      'POST /internal/runs/child-1/cancel',
    ]);
    for (const s of seen) expect([s.headers['x-worker-id'], s.headers['x-run-attempt']]).toEqual(['w-1', '3']);
  });
});

describe('a PATCH retried after its answer was lost', () => {
  it('counts as done when the daemon says the step run or run already has that status', async () => {
    const { url } = await serve([
      { status: 409, body: { code: 'invalid_step_run_state', current_status: 'succeeded' } },
      { status: 409, body: { code: 'invalid_run_state', current_status: 'succeeded' } },
      { status: 409, body: { code: 'invalid_run_state', current_status: 'cancelled' } },
    ]);
    const callbacks = new HttpRunCallbacks(new InternalHttp(url, 'tok', FAST), 'run-1', 'w-1', 1);
    await callbacks.patchStepRun('sr-1', { status: 'succeeded' });
    await callbacks.finishRun({ status: 'succeeded', outputs: {} });
    // Another status is a real refusal: a user cancelled the run meanwhile.
    await expect(callbacks.finishRun({ status: 'succeeded', outputs: {} })).rejects.toMatchObject({
      status: 409,
      code: 'invalid_run_state',
    });
  });
});
