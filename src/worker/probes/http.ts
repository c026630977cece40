import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { attemptSignal, elapsedSince, failed, networkFailure, passed, type CheckOutcome } from './outcome.js';
import { unbracketed } from './tcp.js';

export interface HttpCheck {
  readonly scheme: 'http' | 'https';
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly method: 'GET' | 'HEAD' | 'POST';
  /** Whether a status passes. */
  readonly expected: (status: number) => boolean;
  readonly bodyContains: string;
  readonly verifyTls: boolean;
  readonly followRedirects: boolean;
  readonly timeoutMs: number;
}

/** The most of a body read to look for `body_contains` in; the rest is not read. */
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 5;

/**
 * One HTTP request (and the redirects it is sent to, when following them, on the same host only: a probe
 * checks its target, not whatever the target points at), all within the attempt's timeout. Passes when
 * the final status is expected and the body holds `bodyContains`.
 */
export async function httpProbe(check: HttpCheck, runSignal: AbortSignal): Promise<CheckOutcome> {
  const signal = attemptSignal(runSignal, check.timeoutMs);
  const started = performance.now();
  let url = new URL(`${check.scheme}://${hostForUrl(check.host)}:${check.port}${check.path}`);
  try {
    for (let redirects = 0; ; redirects++) {
      const answer = await send(url, check, signal);
      const location = answer.headers.location;
      if (check.followRedirects && isRedirect(answer.statusCode) && location && redirects < MAX_REDIRECTS) {
        answer.resume();
        const next = new URL(location, url);
        if (next.hostname !== url.hostname) {
          return failed('redirect_off_target', `redirected to another host (${next.host})`, elapsedSince(started), {
            status: answer.statusCode,
            location,
          });
        }
        url = next;
        continue;
      }
      return await judge(answer, check, started, url);
    }
  } catch (error) {
    if (runSignal.aborted) throw runSignal.reason;
    if (signal.aborted) return failed('timeout', `no answer within ${check.timeoutMs} ms`);
    if (isTlsError(error)) return failed('tls_error', (error as Error).message);
    return networkFailure(error, started);
  }
}

async function judge(answer: IncomingMessage, check: HttpCheck, started: number, url: URL): Promise<CheckOutcome> {
  const status = answer.statusCode ?? 0;
  const body = check.method === 'HEAD' || check.bodyContains === '' ? (answer.resume(), '') : await readSome(answer);
  const latency = elapsedSince(started);
  const details = { status, url: url.toString() };
  if (!check.expected(status)) return failed('unexpected_status', `answered ${status}`, latency, details);
  if (check.bodyContains !== '' && !body.includes(check.bodyContains))
    return failed('body_mismatch', 'the body does not contain the expected text', latency, details);
  return passed(latency, details);
}

function send(url: URL, check: HttpCheck, signal: AbortSignal): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: check.method,
      signal,
      headers: { 'user-agent': 'svc-worker-probe', ...(check.method === 'POST' ? { 'content-length': '0' } : {}) },
      ...(url.protocol === 'https:' ? { rejectUnauthorized: check.verifyTls } : {}),
    });
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end();
  });
}

async function readSome(answer: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_BODY_BYTES) {
      answer.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isRedirect(status: number | undefined): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function isTlsError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('ERR_TLS') || code.includes('CERT') || code === 'DEPTH_ZERO_SELF_SIGNED_CERT');
}

/** An IPv6 address goes in brackets in a URL. */
function hostForUrl(host: string): string {
  const bare = unbracketed(host);
  return bare.includes(':') ? `[${bare}]` : bare;
}

/** `200-399,404` as a test of a status (the catalogue checked the format). */
export function statusMatcher(ranges: string): (status: number) => boolean {
  const parts = ranges
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const [low, high] = part.split('-').map((n) => Number(n.trim()));
      return [low!, high ?? low!] as const;
    });
  return (status) => parts.some(([low, high]) => status >= low && status <= high);
}
