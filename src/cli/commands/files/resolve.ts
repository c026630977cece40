import type { Command } from 'commander';
import type { FileRepository } from '../../../shared/api/file-repositories.js';
import { CliError, usageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { isUuid } from '../../../shared/ids.js';
import { idByName } from '../named.js';
import type { FileList, FileView } from './types.js';

/** FILE, the argument of the verbs that act on one file. */
export const fileArgument = (command: Command) => command.argument('<file>', 'file id, or its path (folder/name) in a repository');

/** `--repo`, for the verbs that take one repository. */
export const repoFlag = (command: Command, what: string) => command.option('--repo <repo>', `${what} (id or name)`);

/**
 * REPO as an id: an id as it is, a name the one repository of that name the organization reads; a name
 * both it and the shared organization use is refused with both ids (exit 2), none exits 3.
 */
export function repositoryId(client: ApiClient, ref: string): Promise<string> {
  return idByName(client, '/file-repositories', 'file repository', ref);
}

/** The organization's default repository, made (local, `default`) when it has none: `POST /file-repositories/ensure-default`. */
export async function defaultRepositoryId(client: ApiClient): Promise<string> {
  return ((await client.request({ method: 'POST', path: '/file-repositories/ensure-default' })).body as FileRepository).id;
}

/**
 * FILE as an id: an id as it is, else a path (`folder/name`) looked up among the files the organization
 * reads (in `repo` when given); a path two repositories hold is refused with both ids (exit 2), none exits 3.
 */
export async function fileId(client: ApiClient, ref: string, repo?: string): Promise<string> {
  if (isUuid(ref)) return ref;
  const name = ref.split('/').at(-1)!;
  const query: Record<string, string> = { q: name, limit: '500' };
  if (repo !== undefined) query.repository_id = await repositoryId(client, repo);
  const page = (await client.request({ method: 'GET', path: '/files', query })).body as FileList;
  const matches = page.items.filter((f: FileView) => f.path === ref);
  if (matches.length === 0) throw new CliError('not_found', `no file at "${ref}"${repo ? ` in repository ${repo}` : ''}`);
  if (matches.length > 1)
    throw usageError(`"${ref}" is a path in several repositories: ${matches.map((f) => f.id).join(', ')}`, 'pass the id, or --repo REPO');
  return matches[0]!.id;
}
