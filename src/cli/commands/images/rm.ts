import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface ImagesRmOptions {
  readonly repository: string;
  /** One tag; absent: the whole repository. */
  readonly tag: string | undefined;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(
    jsonFlag(
      command
        .description(
          "Delete a tag (and every tag naming the same digest), or with no tag the whole repository, in the organization's own namespace. The registry's garbage collection frees the blobs.",
        )
        .argument('<repository>', 'the repository in full')
        .argument('[tag]', 'the tag; none deletes the repository'),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runImagesRm({ repository: positionals[0]!, tag: positionals[1], yes: flag.yes(raw), json: flag.json(raw) }, ctx);

/** `DELETE /images/repository/tag?name=&tag=` or `DELETE /images/repository?name=`. `--json`: `{repository, tag, deleted: true}`. */
export async function runImagesRm(options: ImagesRmOptions, ctx: Context): Promise<void> {
  const what = options.tag === undefined ? `repository ${options.repository} and every tag in it` : `${options.repository}:${options.tag}`;
  await confirmDestructive(ctx.io, `Delete ${what}`, options.yes);
  const query: Record<string, string> = { name: options.repository, ...(options.tag !== undefined ? { tag: options.tag } : {}) };
  const path = options.tag === undefined ? '/images/repository' : '/images/repository/tag';
  await ctx.apiClient().request({ method: 'DELETE', path, query });
  if (options.json) printJson(ctx.io, { repository: options.repository, tag: options.tag ?? null, deleted: true });
  else ctx.io.err(`Deleted ${what}.\n`);
}
