import { z } from 'zod';
import { CliError } from '../errors.js';
import { jsonBody, notSvc } from '../http/answer.js';
import { unreachable } from '../http/network-error.js';

const authConfigSchema = z.object({
  /** The daemon's mark: an answer without it is not svc's, whatever else it holds. */
  service: z.literal('svc'),
  version: z.string().optional(),
  auth_enabled: z.boolean(),
  issuer: z.string().nullable(),
  cli_client_id: z.string(),
  audience: z.string().optional(),
  scopes: z.array(z.string()).default(['openid', 'profile', 'email']),
});
export type ServerAuthConfig = z.infer<typeof authConfigSchema>;

/**
 * `GET <server>/auth/config`: recognises an svc server, and names the provider and client id the CLI
 * signs in with. `svc login` asks it before it sends or stores any credential, so that a captive
 * portal or a typo'd URL never receives a token nor gets stored as a server (exit 6, nothing stored).
 */
export async function discoverServer(server: string, signal?: AbortSignal): Promise<ServerAuthConfig> {
  const url = new URL('/auth/config', server);
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, signal: signal ?? null });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw unreachable(url, err);
  }
  if (!response.ok) throw notSvc(url, String(response.status));
  const parsed = authConfigSchema.safeParse(await jsonBody(response, url));
  if (!parsed.success)
    throw new CliError('server_error', `${url.href} did not answer an svc sign-in configuration; is this an svc server?`);
  return parsed.data;
}
