import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flowId } from '../runs/resolve.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { attachmentAt, attachmentsPath, flowArgument } from './resolve.js';

export interface AttachmentsRmOptions {
  /** A flow id or name. */
  readonly flow: string;
  readonly paths: readonly string[];
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(
    jsonFlag(
      flowArgument(command.description("Delete attachments of a flow's draft (committed versions keep what they pinned).")).argument(
        '<path...>',
        'paths of the attachments (folder/name)',
      ),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runAttachmentsRm({ flow: positionals[0]!, paths: positionals.slice(1), yes: flag.yes(raw), json: flag.json(raw) }, ctx);

/**
 * `DELETE /flows/{flow_id}/attachments/{attachment_id}` for each path. Every path is looked up before
 * anything is deleted, so a path the flow lacks (exit 3) deletes nothing. `--json`: `{deleted: [{id, path}]}`.
 */
export async function runAttachmentsRm(options: AttachmentsRmOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const flow = await flowId(client, options.flow);
  const found = [];
  for (const path of new Set(options.paths)) found.push(await attachmentAt(client, flow, path));
  await confirmDestructive(ctx.io, `Delete ${found.length === 1 ? found[0]!.path : `${found.length} attachments`}`, options.yes);
  for (const attachment of found) {
    await client.request({ method: 'DELETE', path: `${attachmentsPath(flow)}/${enc(attachment.id)}` });
    if (!options.json) ctx.io.err(`Deleted ${attachment.path} (${attachment.id}).\n`);
  }
  if (options.json) printJson(ctx.io, { deleted: found.map((a) => ({ id: a.id, path: a.path })) });
}
