import type { InternalVariables } from '../../../shared/api/variables.js';
import { isUuid } from '../../../shared/ids.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import { fence, isHeldBy, runNotFound, type Holder } from '../run-callbacks/fence.js';
import { SecretBackendError, SecretReferenceError, type SecretResolver } from '../secrets/secret-resolver.js';
import type { VariableRow, VariablesRepo } from './variables-repo.js';

/** A run's variables are read while its worker executes it (paused: it may resume and read them again). */
const READABLE_WHILE = ['running', 'paused'] as const;

/**
 * The variables a worker renders a run's templates with (`GET /internal/variables`): the run
 * organization's live variables over the shared organization's of the same name, read when asked (a
 * change applies to the next run, and to a run resumed after an approval). A `secret_ref` variable gives
 * the secret's value, resolved here through the secrets module in the variable's own organization; one
 * whose secret cannot be read is left out and named in `unresolved`, so only a step that uses it fails.
 */
export class RunVariables {
  constructor(
    private readonly repo: VariablesRepo,
    private readonly access: OrgAccessRepo,
    private readonly secrets: SecretResolver,
  ) {}

  async forRun(runId: string, holder: Holder): Promise<InternalVariables> {
    const run = fence(isUuid(runId) ? await this.repo.run(runId) : undefined, (r) => isHeldBy(r, holder), holder, READABLE_WHILE, 'read');
    if (!run) throw runNotFound();
    const orgIds = await this.access.readableOrgIds(run.org_id);
    const rows = await this.repo.allLive(orgIds);
    const chosen = new Map<string, VariableRow>();
    for (const row of rows) {
      const held = chosen.get(row.name);
      if (!held || row.org_id === run.org_id) chosen.set(row.name, row);
    }
    const variables: Record<string, unknown> = {};
    const secretNames: string[] = [];
    const unresolved: { name: string; reason: string }[] = [];
    for (const row of chosen.values()) {
      if (row.type !== 'secret_ref') {
        variables[row.name] = row.value_json;
        continue;
      }
      try {
        variables[row.name] = await this.secrets.resolveReference(row.org_id, String(row.value_json));
        secretNames.push(row.name);
      } catch (error) {
        if (error instanceof SecretReferenceError) unresolved.push({ name: row.name, reason: error.problem });
        else if (error instanceof SecretBackendError) unresolved.push({ name: row.name, reason: 'backend_error' });
        else throw error;
      }
    }
    return { run_id: run.id, org_id: run.org_id, variables, secret_names: secretNames, unresolved };
  }
}
