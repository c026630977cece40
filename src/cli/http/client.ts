import { SVC_VERSION } from '../../shared/version.js';
import { ApiError, CliError } from '../errors.js';
import { jsonBody } from './answer.js';
import type { Credential, CredentialSource } from './credential-source.js';
import { unreachable } from './network-error.js';
import { isOrganizationRefusal, namedOrganization, organizationRefusal } from './org-refusal.js';

export interface ApiRequest {
  readonly method: string;
  /** A path on the server (`/auth/me`), with or without a query string. */
  readonly path: string;
  readonly query?: Record<string, string | string[]>;
  /** Sent as JSON unless it is a string (sent as is). */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Ends this request (and the reading of its body) besides Ctrl-C; the abort's error is thrown as it is. */
  readonly signal?: AbortSignal;
  /** Bytes streamed as the body (an upload), in place of `body`; sent once, so never retried after a renewal. */
  readonly upload?: { readonly bytes: AsyncIterable<Uint8Array>; readonly contentType: string; readonly length?: number };
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body, or null when empty (any other answer is an error: not svc). */
  readonly body: unknown;
}

/** An error answer's body: the problem's JSON, else its text (a proxy's page), else null. */
async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  if (/json/.test(response.headers.get('content-type') ?? '')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function problemOf(response: Response, body: unknown): ApiError {
  const problem = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const code = typeof problem.code === 'string' ? problem.code : `http_${response.status}`;
  const message =
    typeof problem.detail === 'string'
      ? problem.detail
      : typeof problem.title === 'string'
        ? problem.title
        : `the server answered ${response.status}`;
  const requestId = typeof problem.request_id === 'string' ? problem.request_id : (response.headers.get('x-request-id') ?? undefined);
  const rule = typeof problem.rule === 'string' ? problem.rule : undefined;
  return new ApiError(message, {
    status: response.status,
    code,
    ...(requestId === undefined ? {} : { requestId }),
    ...(rule === undefined ? {} : { rule }),
  });
}

/** What a client is made from; a command's `Context` is one (runtime/context.ts makes its client so). */
export interface ClientContext {
  /** `--org`, sent as X-Org-Id. */
  readonly globals: { readonly org: string | undefined };
  /** Ctrl-C: aborts the request in flight. */
  readonly signal: AbortSignal;
  /** Where the bearer comes from; asked on the first request, not before. */
  credentials(): Promise<CredentialSource>;
}

/**
 * The daemon's API as the CLI calls it: the bearer of the context's credential source, `X-Org-Id`
 * from `--org`, and a non-2xx answer thrown as an `ApiError` with the problem's code and request id.
 * `transport` sends the requests (fetch; a test's stub, as cli/cli's tests stub the HTTP transport).
 */
export class ApiClient {
  constructor(
    private readonly ctx: ClientContext,
    private readonly transport: typeof fetch = fetch,
  ) {}

  async request(request: ApiRequest): Promise<ApiResponse> {
    const response = await this.#answer(request);
    return { status: response.status, headers: response.headers, body: await jsonBody(response, response.url) };
  }

  /**
   * A 2xx answer whose body the caller reads as it comes (the run event stream); refusals are thrown
   * as by `request`. The body stays bound to Ctrl-C and to the request's `signal`.
   */
  async open(request: ApiRequest): Promise<Response> {
    return this.#answer(request);
  }

  async #answer(request: ApiRequest): Promise<Response> {
    const credentials = await this.ctx.credentials();
    let credential = await credentials.current();
    let response = await this.#send(credential, request);
    // A token the server calls expired (clock skew, revoked session): renew once, if the source can, and retry.
    if (
      response.status === 401 &&
      request.upload === undefined &&
      ((await readBody(response.clone())) as { code?: unknown } | null)?.code === 'token_expired'
    ) {
      const renewed = await credentials.renewed();
      if (renewed !== undefined) {
        credential = renewed;
        response = await this.#send(credential, request);
      }
    }
    if (response.ok) return response;
    const body = await readBody(response);
    const error = problemOf(response, body);
    if (error.kind === 'forbidden' && isOrganizationRefusal(body)) {
      throw await organizationRefusal(error, namedOrganization(request, this.ctx.globals.org), () =>
        this.#send(credential, { method: 'GET', path: '/auth/me' }),
      );
    }
    if (error.kind !== 'auth_required' || credential.refusedHint === undefined) throw error;
    throw new ApiError(error.message, {
      status: error.status!,
      code: error.code!,
      ...(error.requestId ? { requestId: error.requestId } : {}),
      hint: credential.refusedHint,
    });
  }

  async #send(credential: Credential, request: ApiRequest): Promise<Response> {
    const url = new URL(request.path.replace(/^\/?/, '/'), `${credential.server}/`);
    for (const [key, value] of Object.entries(request.query ?? {})) for (const v of [value].flat()) url.searchParams.append(key, v);
    const headers = new Headers({ accept: 'application/json', 'user-agent': `svc/${SVC_VERSION}` });
    if (this.ctx.globals.org !== undefined) headers.set('x-org-id', this.ctx.globals.org);
    headers.set('authorization', `Bearer ${credential.accessToken}`);
    let body: string | AsyncIterable<Uint8Array> | undefined;
    if (request.upload !== undefined) {
      body = request.upload.bytes;
      headers.set('content-type', request.upload.contentType);
      if (request.upload.length !== undefined) headers.set('content-length', String(request.upload.length));
    } else if (request.body !== undefined) {
      body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
      headers.set('content-type', 'application/json');
    }
    for (const [key, value] of Object.entries(request.headers ?? {})) headers.set(key, value);
    try {
      return await this.transport(url, {
        method: request.method,
        headers,
        // A streamed body needs `duplex: 'half'` (fetch's rule for a body that is not whole yet).
        ...(body === undefined ? {} : { body: body as RequestInit['body'] }),
        ...(typeof body === 'object' ? { duplex: 'half' } : {}),
        signal: request.signal === undefined ? this.ctx.signal : AbortSignal.any([this.ctx.signal, request.signal]),
      });
    } catch (err) {
      if (this.ctx.signal.aborted) throw new CliError('interrupted', 'interrupted');
      if (request.signal?.aborted) throw err;
      throw unreachable(url, err);
    }
  }
}
