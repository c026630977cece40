import { describe, expect, it } from 'vitest';
import { parseOrgsListOptions, runOrgsList } from '../src/cli/commands/orgs/list.js';
import { ApiError, exitCodeOf } from '../src/cli/errors.js';
import { ApiClient } from '../src/cli/http/client.js';
import { fixedCredential, type Credential, type CredentialSource } from '../src/cli/http/credential-source.js';
import { createContext, type ContextOverrides } from '../src/cli/runtime/context.js';
import type { IO } from '../src/cli/runtime/io.js';

const SERVER = 'https://svc.invalid';

/** Answers each request with the next of `answers` and records what was sent: no server, no network. */
function stubTransport(answers: { status: number; body: unknown }[]) {
  const sent: { url: string; method: string; headers: Headers }[] = [];
  const transport: typeof fetch = async (input, init) => {
    sent.push({ url: String(input), method: init?.method ?? 'GET', headers: new Headers(init?.headers) });
    const answer = answers.shift();
    if (answer === undefined) throw new Error('no answer left for this request');
    const problem = answer.status >= 400;
    return new Response(JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': problem ? 'application/problem+json' : 'application/json' },
    });
  };
  return { transport, sent };
}

/** A credential source that counts how often the client asks it, renewing to `renewedTo` if given. */
function countingSource(current: Credential, renewedTo?: Credential) {
  const calls = { current: 0, renewed: 0 };
  const source: CredentialSource = {
    current: async () => (calls.current++, current),
    renewed: async () => (calls.renewed++, renewedTo),
  };
  return { source, calls };
}

function context(overrides: ContextOverrides, org?: string) {
  let stdout = '';
  const io: IO = {
    stdin: process.stdin,
    out: (text) => void (stdout += text),
    err: () => undefined,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    colorOut: false,
    colorErr: false,
  };
  // No credentials file anywhere: whatever is used comes from the overrides.
  const env = { XDG_CONFIG_HOME: '/nonexistent/svc-cli-context', HOME: '/nonexistent' };
  const ctx = createContext(io, env, { profile: 'default', server: undefined, org }, new AbortController().signal, overrides);
  return { ctx, stdout: () => stdout };
}

const expiredProblem = { status: 401, body: { type: 'about:blank', title: 'Unauthorized', status: 401, code: 'token_expired' } };

describe("a verb's run function with an injected client (the context as cli/cli's factory)", () => {
  it('lists organizations through the injected client and credential source, sending their bearer and --org', async () => {
    const page = { items: [{ id: 'o1', slug: 'acme', name: 'Acme' }], total: 1, limit: 2, offset: 0 };
    const { transport, sent } = stubTransport([{ status: 200, body: page }]);
    const { source } = countingSource({ accessToken: 'token-1', server: SERVER });
    const { ctx, stdout } = context({ credentials: source, apiClient: (c) => new ApiClient(c, transport) }, 'acme');

    await runOrgsList(parseOrgsListOptions({ json: true, limit: '2' }), ctx);

    expect(JSON.parse(stdout())).toEqual(page);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe('GET');
    expect(sent[0]!.url).toBe(`${SERVER}/orgs?limit=2`);
    expect(sent[0]!.headers.get('authorization')).toBe('Bearer token-1');
    expect(sent[0]!.headers.get('x-org-id')).toBe('acme');
  });

  it('makes the client once and asks the credential source nothing until the first request', async () => {
    const { transport } = stubTransport([{ status: 200, body: {} }]);
    const { source, calls } = countingSource({ accessToken: 'token-1', server: SERVER });
    let made = 0;
    const { ctx } = context({ credentials: source, apiClient: (c) => (made++, new ApiClient(c, transport)) });

    const client = ctx.apiClient();
    expect(ctx.apiClient()).toBe(client);
    expect(made).toBe(1);
    expect(calls).toEqual({ current: 0, renewed: 0 });
    await client.request({ method: 'GET', path: '/auth/me' });
    expect(calls).toEqual({ current: 1, renewed: 0 });
  });
});

describe('the API client and its credential source', () => {
  it('asks the source for a renewed credential after a 401 token_expired and retries once with it', async () => {
    const { transport, sent } = stubTransport([expiredProblem, { status: 200, body: { username: 'admin' } }]);
    const { source, calls } = countingSource({ accessToken: 'old', server: SERVER }, { accessToken: 'new', server: SERVER });
    const { ctx } = context({ credentials: source, apiClient: (c) => new ApiClient(c, transport) });

    const response = await ctx.apiClient().request({ method: 'GET', path: '/auth/me' });

    expect(response.status).toBe(200);
    expect(calls).toEqual({ current: 1, renewed: 1 });
    expect(sent.map((r) => r.headers.get('authorization'))).toEqual(['Bearer old', 'Bearer new']);
  });

  it("a source that cannot renew leaves the 401: exit 4, the problem's code, the credential's hint, one request", async () => {
    const { transport, sent } = stubTransport([expiredProblem]);
    const refused = { accessToken: 'pat', server: SERVER, refusedHint: 'svc login --server https://svc.invalid' };
    const { ctx } = context({ credentials: fixedCredential(refused), apiClient: (c) => new ApiClient(c, transport) });

    const failure = await ctx
      .apiClient()
      .request({ method: 'GET', path: '/auth/me' })
      .catch((err: unknown) => err);

    expect(failure).toBeInstanceOf(ApiError);
    expect(exitCodeOf(failure)).toBe(4);
    expect((failure as ApiError).code).toBe('token_expired');
    expect((failure as ApiError).status).toBe(401);
    expect((failure as ApiError).hint).toBe(refused.refusedHint);
    expect(sent).toHaveLength(1);
  });
});
