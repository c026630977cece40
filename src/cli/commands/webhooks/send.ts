import { SVC_VERSION } from '../../../shared/version.js';
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signPayload } from '../../../shared/webhooks/signing.js';
import { ApiError, CliError, usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { flag } from '../shared.js';
import { readPayload, readSecret, type PayloadSource, type SecretSource } from './send-inputs.js';
import type { TriggerEnvelope } from './types.js';

export interface WebhooksSendOptions {
  readonly target: { readonly kind: 'token'; readonly token: string } | { readonly kind: 'url'; readonly url: URL };
  readonly payload: PayloadSource;
  readonly auth: { readonly kind: 'none' } | { readonly kind: 'hmac' | 'bearer'; readonly secret: SecretSource; readonly flag: string };
  readonly idempotencyKey: string | undefined;
  /** `--timestamp`: Unix seconds as sent; default the clock at send time. */
  readonly timestamp: string | undefined;
  readonly timeoutSeconds: number;
  readonly json: boolean;
}

const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function secretSource(
  raw: Record<string, unknown>,
  envFlag: string,
  fileFlag: string,
  envKey: string,
  fileKey: string,
): { source: SecretSource; flag: string } | undefined {
  const variable = flag.string(raw, envKey);
  const path = flag.string(raw, fileKey);
  if (variable !== undefined && path !== undefined) throw usageError(`give ${envFlag} or ${fileFlag}, not both`);
  if (variable !== undefined) {
    // The value is not echoed: a secret pasted here by mistake should not reach the terminal log too.
    if (!ENV_NAME.test(variable))
      throw usageError(`${envFlag} takes the NAME of an environment variable holding the secret, not the secret`);
    return { source: { kind: 'env', variable }, flag: envFlag };
  }
  return path === undefined ? undefined : { source: { kind: 'file', path }, flag: fileFlag };
}

/** Only parses: which endpoint, which payload, which credential. */
export function parseWebhooksSendOptions(raw: Record<string, unknown>): WebhooksSendOptions {
  const token = flag.string(raw, 'token');
  const urlText = flag.string(raw, 'url');
  if ((token === undefined) === (urlText === undefined))
    throw usageError('give the endpoint as --token PATH_TOKEN or as --url TRIGGER_URL (one of them)');
  let target: WebhooksSendOptions['target'];
  if (token !== undefined) {
    if (!TOKEN.test(token)) throw usageError('--token takes the endpoint\'s path token (letters, digits, "-" and "_")');
    target = { kind: 'token', token };
  } else {
    let url: URL;
    try {
      url = new URL(urlText!);
    } catch {
      throw usageError('--url must be a full http(s) URL, e.g. https://svc.example.com/hooks/<path_token>');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw usageError('--url must be an http(s) URL');
    target = { kind: 'url', url };
  }

  const data = flag.string(raw, 'data');
  const file = flag.string(raw, 'file');
  if ((data === undefined) === (file === undefined))
    throw usageError('give the payload as --data JSON or --file PATH (- for standard input), one of them');
  const payload: PayloadSource =
    data !== undefined ? { kind: 'data', text: data } : file === '-' ? { kind: 'stdin' } : { kind: 'file', path: file! };

  const hmac = secretSource(raw, '--secret-env', '--secret-file', 'secretEnv', 'secretFile');
  const bearer = secretSource(raw, '--bearer-env', '--bearer-file', 'bearerEnv', 'bearerFile');
  if (hmac && bearer) throw usageError('sign (--secret-env/--secret-file) or send a bearer (--bearer-env/--bearer-file), not both');
  const auth: WebhooksSendOptions['auth'] = hmac
    ? { kind: 'hmac', secret: hmac.source, flag: hmac.flag }
    : bearer
      ? { kind: 'bearer', secret: bearer.source, flag: bearer.flag }
      : { kind: 'none' };

  const timestamp = flag.string(raw, 'timestamp');
  if (timestamp !== undefined && !/^[0-9]{1,15}$/.test(timestamp)) throw usageError('--timestamp takes Unix epoch seconds (digits only)');
  if (timestamp !== undefined && auth.kind !== 'hmac') throw usageError('--timestamp goes with signing (--secret-env or --secret-file)');
  const idempotencyKey = flag.string(raw, 'idempotencyKey');
  if (idempotencyKey !== undefined && idempotencyKey.length > 255) throw usageError('--idempotency-key must be at most 255 characters');
  const timeout = flag.string(raw, 'timeout') ?? '30';
  if (!/^[0-9]{1,5}$/.test(timeout) || Number(timeout) < 1) throw usageError('--timeout takes whole seconds (at least 1)');

  return { target, payload, auth, idempotencyKey, timestamp, timeoutSeconds: Number(timeout), json: flag.json(raw) };
}

/** The trigger URL: `--url` as given, or `<server>/hooks/<token>` with `--server`/SVC_SERVER or the profile's server. */
async function triggerUrl(target: WebhooksSendOptions['target'], ctx: Context): Promise<URL> {
  if (target.kind === 'url') return target.url;
  const server = ctx.globals.server ?? (await (await ctx.store()).get(ctx.globals.profile))?.server;
  if (server === undefined)
    throw usageError(`no server: profile "${ctx.globals.profile}" has none`, 'pass --server URL, or --url with the full trigger URL');
  return new URL(`${server}/hooks/${encodeURIComponent(target.token)}`);
}

async function authHeaders(options: WebhooksSendOptions, body: Buffer, env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  if (options.auth.kind === 'none') return {};
  const secret = await readSecret(options.auth.secret, env, options.auth.flag);
  if (options.auth.kind === 'bearer') {
    if (/\s/.test(secret)) throw usageError(`${options.auth.flag}: a bearer token cannot contain whitespace`);
    return { authorization: `Bearer ${secret}` };
  }
  const timestamp = options.timestamp ?? String(Math.floor(Date.now() / 1000));
  return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signPayload(secret, timestamp, body) };
}

/**
 * `POST /hooks/{path_token}` as an external system would send it: the JSON payload, signed or with a
 * bearer, and none of the profile's credentials (the route is public; the endpoint's secret is what
 * authenticates). Prints the delivery and run, or the body with `--json`.
 */
export async function runWebhooksSend(options: WebhooksSendOptions, ctx: Context): Promise<void> {
  const url = await triggerUrl(options.target, ctx);
  const body = await readPayload(options.payload, ctx.io);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': `svc/${SVC_VERSION}`,
    ...(await authHeaders(options, body, ctx.env)),
    ...(options.idempotencyKey === undefined ? {} : { [IDEMPOTENCY_HEADER]: options.idempotencyKey }),
  };
  const timeout = AbortSignal.timeout(options.timeoutSeconds * 1000);
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.any([ctx.signal, timeout]), redirect: 'manual' });
  } catch (err) {
    if (ctx.signal.aborted) throw new CliError('interrupted', 'interrupted');
    // The origin only: the path token addresses the endpoint and need not reach logs.
    if (timeout.aborted) throw new CliError('error', `no answer from ${url.origin} within ${options.timeoutSeconds} s`);
    // fetch says only "fetch failed"; the cause names it (ECONNREFUSED, a certificate problem, …).
    const cause = (err as Error).cause as { code?: string; message?: string } | undefined;
    throw new CliError('error', `cannot reach ${url.origin}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, { cause: err });
  }
  const answer = await readAnswer(response);
  if (options.json) printJson(ctx.io, answer);
  if (!response.ok) throw refusal(response, answer);
  if (!options.json) printEnvelope(ctx, answer);
}

async function readAnswer(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function printEnvelope(ctx: Context, answer: unknown): void {
  const envelope = answer as Partial<TriggerEnvelope> | null;
  if (typeof envelope?.delivery_id !== 'string' || !Array.isArray(envelope.triggered_runs)) {
    printJson(ctx.io, answer);
    return;
  }
  printRecord(ctx.io, [
    ['delivery_id', envelope.delivery_id],
    ...envelope.triggered_runs.flatMap(
      (run) =>
        [
          ['run_id', run.run_id],
          ['flow_id', run.flow_id],
          ['flow_name', run.flow_name],
          ['workflow_id', run.workflow_id],
        ] as const,
    ),
  ]);
}

/** A non-2xx answer as an ApiError: the problem's code and request id, and what to do about a 409 or 429. */
function refusal(response: Response, answer: unknown): ApiError {
  const problem = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>) : {};
  const text = (key: string) => (typeof problem[key] === 'string' ? (problem[key] as string) : undefined);
  const code = text('code') ?? `http_${response.status}`;
  const reason = text('reason');
  const message = `${text('detail') ?? text('title') ?? `the server answered ${response.status}`}${reason ? ` (reason: ${reason})` : ''}`;
  const requestId = text('request_id') ?? response.headers.get('x-request-id') ?? undefined;
  let hint: string | undefined;
  if (response.status === 409 && text('delivery_id'))
    hint = `already accepted as delivery ${text('delivery_id')}${text('run_id') ? ` (run ${text('run_id')})` : ''}`;
  if (response.status === 429 && response.headers.get('retry-after')) hint = `retry after ${response.headers.get('retry-after')} s`;
  return new ApiError(message, {
    status: response.status,
    code,
    ...(requestId === undefined ? {} : { requestId }),
    ...(hint === undefined ? {} : { hint }),
  });
}
