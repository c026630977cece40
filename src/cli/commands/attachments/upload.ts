import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError, usageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord, printTable } from '../../runtime/table.js';
import { flowId } from '../runs/resolve.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { attachmentsPath, flowArgument } from './resolve.js';
import { ATTACHMENT_COLUMNS, attachmentFields, type BulkUploadResult, type FlowAttachment } from './types.js';
import { zipFolder } from './zip-folder.js';

export interface AttachmentsUploadOptions {
  /** A flow id or name. */
  readonly flow: string;
  /** A local file or folder. */
  readonly source: string;
  /** Where it goes: a file's path, or the folder a folder's tree lands in ("" the root); undefined: the source's name. */
  readonly as: string | undefined;
  readonly overwrite: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    flowArgument(
      command.description(
        "Stream a file into a flow's attachments, or a folder as one zip (all or nothing): its tree lands under the folder's name.",
      ),
    )
      .argument('<local-path>', 'the local file or folder')
      .option('--as <path>', 'a file\'s path (default its name), or the folder a folder\'s tree lands in (default its name; "" the root)')
      .option('--overwrite', 'replace the bytes of attachments at the same paths (their ids stay)'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runAttachmentsUpload(parseAttachmentsUploadOptions(positionals[0]!, positionals[1]!, raw), ctx);

export function parseAttachmentsUploadOptions(flow: string, source: string, raw: Record<string, unknown>): AttachmentsUploadOptions {
  return {
    flow,
    source,
    as: typeof raw.as === 'string' ? raw.as : undefined,
    overwrite: raw.overwrite === true,
    json: flag.json(raw),
  };
}

/** `POST /flows/{flow_id}/attachments?path=`, the file's bytes streamed with their length. */
async function uploadFile(client: ApiClient, flow: string, options: AttachmentsUploadOptions, size: number) {
  const path = options.as || basename(options.source);
  const answer = await client.request({
    method: 'POST',
    path: attachmentsPath(flow),
    query: { path, ...(options.overwrite ? { overwrite: 'true' } : {}) },
    upload: {
      bytes: createReadStream(options.source, { highWaterMark: 1024 * 1024 }),
      contentType: 'application/octet-stream',
      length: size,
    },
  });
  return { status: answer.status, attachment: answer.body as FlowAttachment };
}

/** `POST /flows/{flow_id}/attachments/bulk?folder=`, the folder zipped while it streams (chunked). */
async function uploadFolder(client: ApiClient, flow: string, options: AttachmentsUploadOptions, ctx: Context) {
  const folder = options.as ?? basename(resolve(options.source));
  const zip = await zipFolder(options.source);
  for (const skipped of zip.skipped) ctx.io.err(`Skipped ${skipped}: not a regular file or folder.\n`);
  if (zip.files === 0) throw new CliError('error', `${options.source} holds no file to upload`);
  const query: Record<string, string> = {};
  if (folder !== '') query.folder = folder;
  if (options.overwrite) query.overwrite = 'true';
  const answer = await client.request({
    method: 'POST',
    path: `${attachmentsPath(flow)}/bulk`,
    query,
    upload: { bytes: zip.bytes, contentType: 'application/zip' },
  });
  return answer.body as BulkUploadResult;
}

/**
 * A file: one attachment, its fields on stdout (`--json` the attachment). A folder: one bulk upload,
 * the daemon storing all of it or none; its attachments as a table (`--json` `{items, created,
 * replaced}`). A taken path is 409 `attachment_exists` (exit 1) unless --overwrite.
 */
export async function runAttachmentsUpload(options: AttachmentsUploadOptions, ctx: Context): Promise<void> {
  const info = await stat(options.source).catch((error: NodeJS.ErrnoException) => {
    throw new CliError('error', `cannot read ${options.source}: ${error.code ?? error.message}`);
  });
  if (!info.isFile() && !info.isDirectory()) throw usageError(`${options.source} is neither a file nor a folder`);
  const client = ctx.apiClient();
  const flow = await flowId(client, options.flow);
  if (info.isFile()) {
    const { status, attachment } = await uploadFile(client, flow, options, info.size);
    if (options.json) return printJson(ctx.io, attachment);
    ctx.io.err(`${status === 201 ? 'Uploaded' : 'Replaced'} ${attachment.path} (${attachment.id}).\n`);
    return printRecord(ctx.io, attachmentFields(attachment));
  }
  const result = await uploadFolder(client, flow, options, ctx);
  if (options.json) return printJson(ctx.io, result);
  ctx.io.err(`Uploaded ${result.items.length} attachments (${result.created} new, ${result.replaced} replaced).\n`);
  printTable(ctx.io, result.items, ATTACHMENT_COLUMNS, 'No attachments.');
}
