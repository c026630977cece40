import type { Command } from 'commander';
import type { ImageRepository } from '../../../shared/api/registry.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface ImagesTagsOptions {
  readonly repository: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('The tags of one image repository and the digest each names.')
      .argument('<repository>', 'the repository in full, e.g. orgs/acme/docker.io/library/alpine'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runImagesTags({ repository: positionals[0]!, json: flag.json(raw) }, ctx);

/** `GET /images/repository?name=`. `--json`: the repository with its tags. */
export async function runImagesTags(options: ImagesTagsOptions, ctx: Context): Promise<void> {
  const query = { name: options.repository };
  const repository = (await ctx.apiClient().request({ method: 'GET', path: '/images/repository', query })).body as ImageRepository;
  if (options.json) return printJson(ctx.io, repository);
  printTable(
    ctx.io,
    repository.tags,
    [
      { header: 'TAG', value: (t) => t.name },
      { header: 'DIGEST', value: (t) => t.digest },
    ],
    `No tags in ${repository.name}.`,
  );
}
