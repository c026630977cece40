import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { GitAuth } from '../../../shared/api/git.js';
import { usageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { idByName } from '../named.js';
import { flag } from '../shared.js';

/** REPO as the verbs take it: an id, or the exact name of one of the organization's repositories. */
export function repositoryId(client: ApiClient, ref: string): Promise<string> {
  return idByName(client, '/git-repositories', 'git repository', ref, 'in this organization');
}

/** The flags that say how the daemon authenticates to the remote (create and update). */
export function authFlags(command: Command): Command {
  return command
    .option('--token <ref>', 'authenticate with a token (HTTPS): its secret reference')
    .option('--username <name>', 'with --token: the user name to send it as')
    .option('--ssh-key <ref>', 'authenticate with an SSH private key: its secret reference')
    .option('--known-hosts <file>', "with --ssh-key: an OpenSSH known_hosts file with the remote's host key");
}

/**
 * The `auth` the flags give: a token or an SSH key (secret references, never values), `none` with
 * `--no-auth`; undefined when they say nothing. Both kinds at once, or a companion flag without its
 * kind, is a usage error (exit 2).
 */
export async function authOf(raw: Record<string, unknown>): Promise<GitAuth | undefined> {
  const token = flag.string(raw, 'token');
  const sshKey = flag.string(raw, 'sshKey');
  const username = flag.string(raw, 'username');
  const knownHosts = flag.string(raw, 'knownHosts');
  if (token !== undefined && sshKey !== undefined) throw usageError('--token and --ssh-key cannot go together');
  if (username !== undefined && token === undefined) throw usageError('--username goes with --token');
  if (knownHosts !== undefined && sshKey === undefined) throw usageError('--known-hosts goes with --ssh-key');
  if (raw.auth === false) {
    if (token !== undefined || sshKey !== undefined) throw usageError('--no-auth cannot go with --token or --ssh-key');
    return { type: 'none' };
  }
  if (token !== undefined) return { type: 'token', secret_ref: token, ...(username === undefined ? {} : { username }) };
  if (sshKey !== undefined)
    return {
      type: 'ssh_key',
      secret_ref: sshKey,
      ...(knownHosts === undefined ? {} : { known_hosts: await readFile(knownHosts, 'utf8') }),
    };
  return undefined;
}
