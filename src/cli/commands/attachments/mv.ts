import type { Command } from 'commander';
import type { ApiClient } from '../../http/client.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flowId } from '../runs/resolve.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { attachmentAt, attachmentsPath, flowArgument } from './resolve.js';
import { ATTACHMENT_COLUMNS, type BulkRenameResult, type FlowAttachment } from './types.js';

export interface AttachmentsMvOptions {
  /** A flow id or name. */
  readonly flow: string;
  readonly from: string;
  readonly to: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    flowArgument(command.description('Rename or move an attachment, or a folder of them (FROM ending in /); bytes stay where they are.'))
      .argument('<from>', "the attachment's path, or a folder ending in /")
      .argument('<to>', 'the new path; ending in /, the folder a file moves into under its name'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runAttachmentsMv({ flow: positionals[0]!, from: positionals[1]!, to: positionals[2]!, json: flag.json(raw) }, ctx);

/** A folder: `POST .../attachments/bulk-rename` with one rename (checked whole by the daemon), the attachments it moved. */
async function moveFolder(client: ApiClient, flow: string, from: string, to: string): Promise<FlowAttachment[]> {
  const body = { renames: [{ from, to: to.replace(/\/+$/, '') }] };
  return ((await client.request({ method: 'POST', path: `${attachmentsPath(flow)}/bulk-rename`, body })).body as BulkRenameResult).items;
}

/** A file: `PATCH .../attachments/{attachment_id}` with its new path (a path the flow lacks exits 3). */
async function moveFile(client: ApiClient, flow: string, from: string, to: string): Promise<FlowAttachment[]> {
  const attachment = await attachmentAt(client, flow, from);
  const path = to.endsWith('/') ? `${to}${attachment.name}` : to;
  const moved = await client.request({ method: 'PATCH', path: `${attachmentsPath(flow)}/${enc(attachment.id)}`, body: { path } });
  return [moved.body as FlowAttachment];
}

/**
 * Moves as the daemon checks it: a taken path or a file where a folder would be is 409
 * `attachment_exists` (exit 1). The moved attachments as a table; `--json` `{items}`.
 */
export async function runAttachmentsMv(options: AttachmentsMvOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const flow = await flowId(client, options.flow);
  const items = options.from.endsWith('/')
    ? await moveFolder(client, flow, options.from, options.to)
    : await moveFile(client, flow, options.from, options.to);
  if (options.json) return printJson(ctx.io, { items });
  ctx.io.err(`Moved ${items.length === 1 ? items[0]!.path : `${items.length} attachments`}.\n`);
  printTable(ctx.io, items, ATTACHMENT_COLUMNS, 'Nothing moved.');
}
