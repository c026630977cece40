import type { LoginMethod } from './store.js';

/** The exact command that gets a new credential for a profile, printed with every "auth required". */
export function loginCommand(options: {
  profile: string;
  server?: string | undefined;
  method?: LoginMethod | undefined;
  clientId?: string | null | undefined;
}): string {
  const parts = ['svc login'];
  if (options.server) parts.push(`--server ${options.server}`);
  if (options.profile !== 'default') parts.push(`--profile ${options.profile}`);
  if (options.method === 'client_credentials')
    parts.push(`--client-credentials${options.clientId ? ` --client-id ${options.clientId}` : ''}`);
  if (options.method === 'token') parts.push('--with-token');
  return parts.join(' ');
}
