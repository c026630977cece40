import type { Command } from 'commander';
import { isUuid } from '../../../shared/ids.js';
import type { ApiClient } from '../../http/client.js';
import { listedNamed, theOneNamed } from '../named.js';
import type { SecretBackendView } from './views.js';

export const BACKENDS_PATH = '/settings/secrets-backends';

/** BACKEND, the argument of the verbs that act on one backend. */
export const backendArgument = (command: Command) => command.argument('<backend>', 'backend id, or its name');

/**
 * BACKEND as the routes take it: an id as is, else the id of the backend of that name (exit 3 when none).
 * The list takes no name filter, so it is read whole: backends are platform settings, a handful of rows.
 */
export async function backendId(client: ApiClient, ref: string): Promise<string> {
  if (isUuid(ref)) return ref;
  return theOneNamed('secret backend', ref, await listedNamed<SecretBackendView>(client, BACKENDS_PATH, ref, {}), 'on this platform');
}
