import type { RunRegistryCredentials } from '../../../shared/api/registry.js';
import { isUuid } from '../../../shared/ids.js';
import { fence, isHeldBy, runNotFound, type Holder } from '../run-callbacks/fence.js';
import { SecretBackendError, SecretReferenceError, type SecretResolver } from '../secrets/secret-resolver.js';
import type { RegistryCredentialsRepo } from './credentials-repo.js';

/** Only a running run executes steps, so only then does a container engine need to log in upstream. */
const READABLE_WHILE = ['running'] as const;

/**
 * The upstream logins a run's container steps use (`GET /internal/runs/{run_id}/registry-credentials`):
 * the credentials of the run's own organization only (never the shared organization's, whose passwords
 * are its own), each password resolved through the secrets module in that organization. A credential
 * whose reference cannot be read is named in `unresolved`, so only a pull from that registry fails.
 * Nothing here is audited or logged: the answer holds secret values.
 */
export class RunRegistryCredentialsReader {
  constructor(
    private readonly repo: RegistryCredentialsRepo,
    private readonly secrets: SecretResolver,
  ) {}

  async forRun(runId: string, holder: Holder): Promise<RunRegistryCredentials> {
    if (!isUuid(runId)) throw runNotFound();
    const run = fence(await this.repo.run(runId), (r) => isHeldBy(r, holder), holder, READABLE_WHILE, 'read');
    const credentials: RunRegistryCredentials['credentials'] = [];
    const unresolved: RunRegistryCredentials['unresolved'] = [];
    for (const row of await this.repo.allOf(run.org_id)) {
      try {
        const password = await this.secrets.resolveReference(run.org_id, row.password_ref);
        credentials.push({ id: row.id, registry: row.registry, url: row.url, username: row.username, password });
      } catch (error) {
        if (error instanceof SecretReferenceError) unresolved.push({ id: row.id, registry: row.registry, reason: error.problem });
        else if (error instanceof SecretBackendError) unresolved.push({ id: row.id, registry: row.registry, reason: 'backend_error' });
        else throw error;
      }
    }
    return { run_id: run.id, org_id: run.org_id, credentials, unresolved };
  }
}
