import type { Services } from '../../daemon.js';
import type { DomainRoutes } from '../../http/types.js';
import type { SecretResolver } from './secret-resolver.js';

export interface SecretsModule {
  readonly routes: readonly DomainRoutes[];
  readonly resolver: SecretResolver;
}

/** Secrets and secret backends. Placeholder until the secrets change lands. */
export async function openSecretsModule(_services: Services): Promise<SecretsModule> {
  const missing = (): never => {
    throw new Error('secrets are not built yet');
  };
  return { routes: [], resolver: { find: missing, readFolder: missing, resolveReference: missing } };
}
