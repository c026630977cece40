import { describe, expect, it } from 'vitest';
import { ApiError, CliError } from '../src/cli/errors.js';
import { ApiClient } from '../src/cli/http/client.js';
import { fixedCredential } from '../src/cli/http/credential-source.js';
import { followRunEvents, type FollowOptions, type StreamItem } from '../src/cli/http/run-event-stream.js';

/**
 * The run event stream client alone, over a scripted transport (no server): frames split anywhere,
 * reconnection after a failure, a drop or silence, from the last event and without duplicates;
 * refusals and answers that are not a stream are final; it gives up after repeated failures.
 */
const RUN = '7c1f5d0e-2b7a-4c1e-9a55-0c3f6b7d8e91';

const frame = (seq: number, type = 'log') =>
  `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ seq, ts: '2026-11-26T10:00:00Z', type, step_id: null, attempt: 1, data: { n: seq } })}\n\n`;
const END = (status: string) => `event: end\ndata: ${JSON.stringify({ status })}\n\n`;

/** A stream answer sending `chunks` in turn; `hold` leaves it open after them (a silent connection). */
function stream(chunks: string[], options: { hold?: boolean } = {}): (signal: AbortSignal) => Response {
  return (signal) => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        if (!options.hold) controller.close();
        else signal.addEventListener('abort', () => controller.error(signal.reason), { once: true });
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}
const problem = (status: number, code: string) => () =>
  new Response(JSON.stringify({ code, title: code }), { status, headers: { 'content-type': 'application/problem+json' } });

type Step = ((signal: AbortSignal) => Response) | Error;

/** A client whose transport answers each request with the next step, recording the `last_event_id` asked for. */
function scripted(steps: Step[]) {
  const asked: (string | null)[] = [];
  const transport = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    expect(url.pathname).toBe(`/bff/runs/${RUN}/events/stream`);
    asked.push(url.searchParams.get('last_event_id'));
    const step = steps.shift();
    if (step === undefined) throw new Error('no more answers scripted');
    if (step instanceof Error) throw step;
    return step(init!.signal!);
  }) as typeof fetch;
  const ctx = {
    globals: { org: undefined },
    signal: new AbortController().signal,
    credentials: async () => fixedCredential({ accessToken: 't', server: 'http://svc.test' }),
  };
  return { client: new ApiClient(ctx, transport), asked };
}

async function collect(client: ApiClient, options: FollowOptions = {}): Promise<StreamItem[]> {
  const items: StreamItem[] = [];
  for await (const item of followRunEvents(client, RUN, { retryMs: 1, ...options })) items.push(item);
  return items;
}

const summary = (items: StreamItem[]) =>
  items.map((i) => (i.kind === 'event' ? i.event.seq : i.kind === 'end' ? `end:${i.status}` : `reconnect@${i.after}`));

describe('the run event stream client', () => {
  it('parses frames split anywhere, skips comments and frames that are not run events, and stops at end', async () => {
    const text = `retry: 1\n\n: keepalive\n\n${frame(1, 'run.status')}event: other\ndata: not json\n\n${frame(2)}${END('succeeded')}`;
    const chunks = text.match(/[\s\S]{1,7}/g)!;
    const { client, asked } = scripted([stream(chunks)]);
    const items = await collect(client);
    expect(summary(items)).toEqual([1, 2, 'end:succeeded']);
    expect(items[0]).toMatchObject({ kind: 'event', event: { seq: 1, type: 'run.status', attempt: 1, data: { n: 1 } } });
    expect(asked).toEqual([null]);
  });

  it('reconnects after a 5xx, a network failure and a stream ending early, from the last event, showing each event once', async () => {
    const { client, asked } = scripted([
      problem(503, 'database_unavailable'),
      new TypeError('fetch failed'),
      stream([frame(1), frame(2)]),
      // A server sending again what the client had.
      stream([frame(2), frame(3), END('failed')]),
    ]);
    expect(summary(await collect(client))).toEqual(['reconnect@0', 'reconnect@0', 1, 2, 'reconnect@2', 3, 'end:failed']);
    expect(asked).toEqual([null, null, null, '2']);
  });

  it('takes a silent connection as dropped and resumes after its last event', async () => {
    const { client, asked } = scripted([stream([frame(1)], { hold: true }), stream([frame(2), END('cancelled')])]);
    expect(summary(await collect(client, { idleMs: 50 }))).toEqual([1, 'reconnect@1', 2, 'end:cancelled']);
    expect(asked).toEqual([null, '1']);
  });

  it('throws a refusal at once, a 501 (no stream route) and an answer that is not an event stream, without reconnecting', async () => {
    const refused = scripted([problem(404, 'resource_not_found')]);
    const error = await collect(refused.client).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'not_found', code: 'resource_not_found', status: 404 });
    expect(refused.asked).toHaveLength(1);

    const unbuilt = scripted([problem(501, 'not_implemented')]);
    expect(await collect(unbuilt.client).catch((err: unknown) => err)).toMatchObject({ kind: 'server_error', status: 501 });
    expect(unbuilt.asked).toHaveLength(1);

    const html = scripted([() => new Response('<html></html>', { status: 200, headers: { 'content-type': 'text/html' } })]);
    expect(await collect(html.client).catch((err: unknown) => err)).toMatchObject({ kind: 'server_error' });
    expect(html.asked).toHaveLength(1);
  });

  it('gives up after maxAttempts reconnections in a row that bring nothing new, counting afresh after progress', async () => {
    const failure = () => new TypeError('fetch failed');
    const { client, asked } = scripted([failure(), failure(), stream([frame(1)]), failure(), failure(), failure()]);
    const items: StreamItem[] = [];
    const error = await (async () => {
      for await (const item of followRunEvents(client, RUN, { retryMs: 1, maxAttempts: 2 })) items.push(item);
    })().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ kind: 'error' });
    // Two failures, then progress (event 1) resets the count; its own end counts one, then two more: the third in a row gives up.
    expect(summary(items)).toEqual(['reconnect@0', 'reconnect@0', 1, 'reconnect@1', 'reconnect@1']);
    expect(asked).toEqual([null, null, null, '1', '1']);
  });

  it('returns without an end when its signal aborts, while connected or while waiting to reconnect', async () => {
    const stop = new AbortController();
    const { client } = scripted([stream([frame(1)], { hold: true })]);
    const items: StreamItem[] = [];
    for await (const item of followRunEvents(client, RUN, { signal: stop.signal })) {
      items.push(item);
      stop.abort();
    }
    expect(summary(items)).toEqual([1]);

    const waiting = new AbortController();
    const failing = scripted([new TypeError('fetch failed')]);
    const seen: StreamItem[] = [];
    for await (const item of followRunEvents(failing.client, RUN, { signal: waiting.signal, retryMs: 60_000 })) {
      seen.push(item);
      waiting.abort();
    }
    expect(summary(seen)).toEqual(['reconnect@0']);
  });
});
