import type { Command } from 'commander';
import { CliError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import type { Variable, VariableList } from './types.js';
import { isUuid } from '../../../shared/ids.js';

/** VARIABLE, the argument of the verbs that act on one variable. */
export const variableArgument = (command: Command) => command.argument('<variable>', 'variable name, or its id');

/**
 * The live variable of this name: the organization's own, else the shared organization's (the one runs
 * get); undefined when there is none. Names are unique per organization, so no ambiguity is left.
 */
export async function variableByName(client: ApiClient, name: string): Promise<Variable | undefined> {
  const page = (await client.request({ method: 'GET', path: '/variables', query: { q: name, limit: '500' } })).body as VariableList;
  const matches = page.items.filter((v) => v.name === name);
  return matches.find((v) => !v.shared) ?? matches[0];
}

/** An id as it is; a name looked up (exit 3 when none is live). */
export async function variableId(client: ApiClient, ref: string): Promise<string> {
  if (isUuid(ref)) return ref;
  const found = await variableByName(client, ref);
  if (!found) throw new CliError('not_found', `no variable named "${ref}" in this organization or the shared one`);
  return found.id;
}
