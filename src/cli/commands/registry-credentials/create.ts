import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { RegistryCredential } from './types.js';

export interface RegistryCredentialsCreateOptions {
  readonly registry: string;
  readonly username: string;
  readonly passwordRef: string;
  readonly url: string | undefined;
  readonly description: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Add the organization's login to an upstream registry (one per registry); the password only as a secret reference.")
      .argument('<registry>', 'the registry host, e.g. ghcr.io or registry.example.com:5000')
      .requiredOption('--username <name>', 'the user to log in as')
      .requiredOption('--password <ref>', 'the secret reference of the password or token')
      .option('--url <url>', 'the API base (default https://<registry>; docker.io: https://registry-1.docker.io)')
      .option('--description <text>', 'what it is for'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runRegistryCredentialsCreate(
    {
      registry: positionals[0]!,
      username: flag.string(raw, 'username')!,
      passwordRef: flag.string(raw, 'password')!,
      url: flag.string(raw, 'url'),
      description: flag.string(raw, 'description'),
      json: flag.json(raw),
    },
    ctx,
  );

/** `POST /registry-credentials`: the new credential's id on stdout, `--json` the credential. */
export async function runRegistryCredentialsCreate(options: RegistryCredentialsCreateOptions, ctx: Context): Promise<void> {
  const body = {
    registry: options.registry,
    username: options.username,
    password_ref: options.passwordRef,
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.description === undefined ? {} : { description: options.description }),
  };
  const created = (await ctx.apiClient().request({ method: 'POST', path: '/registry-credentials', body })).body as RegistryCredential;
  if (options.json) return printJson(ctx.io, created);
  ctx.io.err(
    `Added the login to ${created.registry} as ${created.username}; svc registry-credentials test ${created.registry} tries it.\n`,
  );
  ctx.io.out(`${created.id}\n`);
}
