import type { Command } from 'commander';
import { isUuid } from '../../../shared/ids.js';
import { CliError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import type { SecretList, SecretView } from './types.js';

/** SECRET, the argument of the verbs that act on one secret. */
export const secretArgument = (command: Command) => command.argument('<secret>', 'secret name, or its id');

/** The organization's secret of this name, or undefined (names are unique in an organization; secrets are never shared). */
export async function secretByName(client: ApiClient, name: string): Promise<SecretView | undefined> {
  const page = (await client.request({ method: 'GET', path: '/secrets', query: { name } })).body as SecretList;
  return page.items[0];
}

/** An id as it is; a name looked up (exit 3 when the organization has no secret of that name). */
export async function secretId(client: ApiClient, ref: string): Promise<string> {
  if (isUuid(ref)) return ref;
  const found = await secretByName(client, ref);
  if (!found) throw new CliError('not_found', `no secret named "${ref}" in this organization`);
  return found.id;
}
