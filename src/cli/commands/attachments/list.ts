import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { flowId } from '../runs/resolve.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { attachmentsPath, flowArgument } from './resolve.js';
import { ATTACHMENT_COLUMNS, type AttachmentList } from './types.js';

export interface AttachmentsListOptions {
  /** A flow id or name. */
  readonly flow: string;
  readonly folder: string | undefined;
  readonly q: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    flowArgument(command.description("A flow's attachments (its draft's), by path."))
      .option('--folder <path>', 'only what is under this folder, at any depth')
      .option('--q <text>', 'only paths containing this')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runAttachmentsList(parseAttachmentsListOptions(positionals[0]!, raw), ctx);

export function parseAttachmentsListOptions(flow: string, raw: Record<string, unknown>): AttachmentsListOptions {
  return {
    flow,
    folder: flag.string(raw, 'folder'),
    q: flag.string(raw, 'q'),
    limit: positiveNumber(raw, 'limit', '--limit'),
    json: flag.json(raw),
  };
}

/** `GET /flows/{flow_id}/attachments`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runAttachmentsList(options: AttachmentsListOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await flowId(client, options.flow);
  const query: Record<string, string> = {};
  if (options.folder !== undefined) query.folder = options.folder;
  if (options.q !== undefined) query.q = options.q;
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await client.request({ method: 'GET', path: attachmentsPath(id), query })).body as AttachmentList;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, ATTACHMENT_COLUMNS, 'No attachments.');
}
