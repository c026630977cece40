import type { Command } from 'commander';
import type { RegistryCredential, RegistryCredentialList, RegistryCredentialTest } from '../../../shared/api/registry.js';
import { CliError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import type { Column } from '../../runtime/table.js';
import { isUuid } from '../../../shared/ids.js';

/** The registry credential routes' wire shapes, inferred from the daemon's schemas (types only). */
export type { RegistryCredential, RegistryCredentialList, RegistryCredentialTest };

export const CREDENTIAL_COLUMNS: Column<RegistryCredential>[] = [
  { header: 'ID', value: (c) => c.id },
  { header: 'REGISTRY', value: (c) => c.registry },
  { header: 'USERNAME', value: (c) => c.username },
  { header: 'PASSWORD', value: (c) => c.password_ref },
  { header: 'LAST TEST', value: (c) => (c.last_tested_at === null ? null : `${c.last_test_ok ? 'ok' : 'failed'} ${c.last_tested_at}`) },
];

/** The verbs' one argument: the credential's id, or the registry it logs in to (one per registry). */
export const credentialArgument = (command: Command) => command.argument('<credential>', 'credential id, or its registry (e.g. ghcr.io)');

/** CREDENTIAL as the verbs take it: an id as is, else the organization's credential for that registry (exit 3 when none). */
export async function credentialId(client: ApiClient, ref: string): Promise<string> {
  if (isUuid(ref)) return ref;
  const page = (await client.request({ method: 'GET', path: '/registry-credentials', query: { registry: ref } }))
    .body as RegistryCredentialList;
  const match = page.items.find((c) => c.registry === ref);
  if (!match) throw new CliError('not_found', `no registry credential for "${ref}" in this organization`);
  return match.id;
}
