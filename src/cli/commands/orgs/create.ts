import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { Org } from './types.js';

export interface OrgsCreateOptions {
  readonly slug: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Create an organization (the slug cannot change later).')
      .argument('<slug>', 'lower-case letters and digits, hyphen-separated'),
  )
    .option('--name <name>', 'display name (required)')
    .option('--description <text>', 'description');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runOrgsCreate(parseOrgsCreateOptions(positionals[0]!, raw), ctx);

export function parseOrgsCreateOptions(slug: string, raw: Record<string, unknown>): OrgsCreateOptions {
  const name = flag.string(raw, 'name');
  if (name === undefined) throw usageError('svc orgs create needs a name', 'pass --name NAME');
  return { slug, name, description: flag.string(raw, 'description'), json: flag.json(raw) };
}

/** `POST /orgs`. */
export async function runOrgsCreate(options: OrgsCreateOptions, ctx: Context): Promise<void> {
  const body = {
    slug: options.slug,
    name: options.name,
    ...(options.description === undefined ? {} : { description: options.description }),
  };
  const org = (await ctx.apiClient().request({ method: 'POST', path: '/orgs', body })).body as Org;
  if (options.json) printJson(ctx.io, org);
  else ctx.io.err(`Created organization ${org.slug} (${org.id}).\n`);
}
