import { z } from 'zod';
import { CliError } from '../errors.js';

const authConfigSchema = z.object({
  auth_enabled: z.boolean(),
  issuer: z.string().nullable(),
  cli_client_id: z.string(),
  audience: z.string().optional(),
  scopes: z.array(z.string()).default(['openid', 'profile', 'email']),
});
export type ServerAuthConfig = z.infer<typeof authConfigSchema>;

/** `GET <server>/auth/config`: which provider and client id the CLI signs in with. */
export async function discoverServer(server: string, signal?: AbortSignal): Promise<ServerAuthConfig> {
  let response: Response;
  try {
    response = await fetch(new URL('/auth/config', server), { headers: { accept: 'application/json' }, signal: signal ?? null });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new CliError('error', `cannot reach ${server}: ${(err as Error).message}`, { cause: err });
  }
  if (!response.ok) throw new CliError(response.status >= 500 ? 'server_error' : 'error', `${server}/auth/config answered ${response.status}; is this an svc server?`);
  const parsed = authConfigSchema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new CliError('error', `${server}/auth/config did not answer a sign-in configuration; is this an svc server?`);
  return parsed.data;
}
