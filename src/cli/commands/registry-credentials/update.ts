import type { Command } from 'commander';
import type { UpdateRegistryCredentialBody } from '../../../shared/api/registry.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { clearable, enc, flag, jsonFlag, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';
import { credentialArgument, credentialId, type RegistryCredential } from './types.js';

export interface RegistryCredentialsUpdateOptions {
  /** A credential id or its registry. */
  readonly credential: string;
  readonly changes: UpdateRegistryCredentialBody;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    credentialArgument(
      command.description("Change a registry login's user, password reference, API base or description; its registry stays."),
    )
      .option('--username <name>', 'the user to log in as')
      .option('--password <ref>', 'the secret reference of the password or token')
      .option('--url <url>', 'the API base')
      .option('--description <text>', 'what it is for; empty clears it'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runRegistryCredentialsUpdate({ credential: positionals[0]!, changes: credentialChanges(raw), json: flag.json(raw) }, ctx);

/** The fields the flags change; none at all is a usage error (exit 2). */
export function credentialChanges(raw: Record<string, unknown>): UpdateRegistryCredentialBody {
  const description = clearable(raw, 'description');
  const changes = {
    username: flag.string(raw, 'username'),
    password_ref: flag.string(raw, 'password'),
    url: flag.string(raw, 'url'),
    description,
  };
  return someChange(changes, '--username, --password, --url or --description');
}

/** `PATCH /registry-credentials/{credential_id}`: the credential's id on stdout, `--json` the credential. */
export async function runRegistryCredentialsUpdate(options: RegistryCredentialsUpdateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await credentialId(client, options.credential);
  const updated = (await client.request({ method: 'PATCH', path: `/registry-credentials/${enc(id)}`, body: options.changes }))
    .body as RegistryCredential;
  if (options.json) return printJson(ctx.io, updated);
  ctx.io.err(`Updated the login to ${updated.registry}.\n`);
  ctx.io.out(`${updated.id}\n`);
}
