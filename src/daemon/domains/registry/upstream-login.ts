import type { RegistryCredentialTest } from '../../../shared/api/registry.js';

/** The part of the shared outbound guard (`services.outbound`) a login needs: every hop's address checked. */
export interface UpstreamHttp {
  request(
    url: string | URL,
    request?: { method?: string; headers?: Readonly<Record<string, string>>; timeoutMs?: number; maxResponseBytes?: number },
  ): Promise<{
    readonly status: number;
    readonly headers: Readonly<Record<string, string | string[] | undefined>>;
    text(): Promise<string>;
  }>;
}

interface Challenge {
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
}

/** `Bearer realm="https://auth.docker.io/token",service="registry.docker.io"` as scheme and parameters. */
export function parseChallenge(header: string | string[] | undefined): Challenge | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  const match = text ? /^\s*([A-Za-z]+)\s*(.*)$/.exec(text) : null;
  if (!match) return undefined;
  const params: Record<string, string> = {};
  for (const param of match[2]!.matchAll(/([A-Za-z_]+)\s*=\s*(?:"([^"]*)"|([^,\s]*))/g)) {
    params[param[1]!.toLowerCase()] = param[2] ?? param[3] ?? '';
  }
  return { scheme: match[1]!.toLowerCase(), params };
}

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

function result(
  ok: boolean,
  outcome: RegistryCredentialTest['outcome'],
  httpStatus: number | null,
  detail: string,
): RegistryCredentialTest {
  return { ok, outcome, http_status: httpStatus, detail };
}

const LIMITS = { maxResponseBytes: 64 * 1024 };

/**
 * Logs in to an upstream registry as `docker login` does: `GET /v2/`, then, as its challenge says, the
 * same with Basic credentials, or the token service it names (`realm`, `service`) with them. Answers
 * the outcome; a refused address or a failed connection is the guard's error, left to the caller.
 */
export async function loginToUpstream(
  http: UpstreamHttp,
  upstream: { url: string; username: string; password: string },
): Promise<RegistryCredentialTest> {
  const base = new URL('v2/', upstream.url.endsWith('/') ? upstream.url : `${upstream.url}/`);
  const probe = await http.request(base, LIMITS);
  await probe.text();
  if (probe.status >= 200 && probe.status < 300) {
    return result(true, 'authenticated', probe.status, 'The registry answers without a login; the credential is not needed.');
  }
  if (probe.status !== 401) return result(false, 'not_a_registry', probe.status, `GET /v2/ answered ${probe.status}, not 401 or 200.`);
  const challenge = parseChallenge(probe.headers['www-authenticate']);
  const authorization = basic(upstream.username, upstream.password);
  if (challenge?.scheme === 'basic') {
    const login = await http.request(base, { ...LIMITS, headers: { authorization } });
    await login.text();
    return loginAnswer(login.status, 'GET /v2/ with the credential');
  }
  if (challenge?.scheme === 'bearer' && challenge.params.realm) {
    const tokenUrl = new URL(challenge.params.realm);
    if (challenge.params.service) tokenUrl.searchParams.set('service', challenge.params.service);
    tokenUrl.searchParams.set('account', upstream.username);
    const login = await http.request(tokenUrl, { ...LIMITS, headers: { authorization } });
    const body = await login.text();
    if (login.status === 200 && !hasToken(body)) return result(false, 'not_a_registry', 200, 'The token service answered no token.');
    return loginAnswer(login.status, "the registry's token service");
  }
  return result(false, 'not_a_registry', 401, 'GET /v2/ answered 401 without a Basic or Bearer challenge.');
}

function loginAnswer(status: number, what: string): RegistryCredentialTest {
  if (status >= 200 && status < 300) return result(true, 'authenticated', status, `Logged in: ${what} accepted the credential.`);
  if (status === 401 || status === 403) return result(false, 'unauthorized', status, `${what} refused the credential (${status}).`);
  return result(false, 'not_a_registry', status, `${what} answered ${status}.`);
}

function hasToken(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { token?: unknown; access_token?: unknown };
    return typeof parsed.token === 'string' || typeof parsed.access_token === 'string';
  } catch {
    return false;
  }
}
