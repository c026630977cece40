import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { refuseExisting, saveDownload } from '../../runtime/download.js';
import { flowId } from '../runs/resolve.js';
import { enc, flag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { attachmentAt, attachmentsPath, flowArgument } from './resolve.js';

export interface AttachmentsDownloadOptions {
  /** A flow id or name. */
  readonly flow: string;
  readonly path: string;
  /** A local path, `-` for stdout, or undefined: stdout when it is not a terminal, else the attachment's name here. */
  readonly output: string | undefined;
  readonly clobber: boolean;
}

export function define(command: Command): void {
  flowArgument(command.description("Stream an attachment's bytes to a local file or stdout, checked against its SHA-256 on the way."))
    .argument('<path>', "the attachment's path (folder/name)")
    .option(
      '-o, --output <file>',
      "where to write: a path, or - for stdout (default: stdout when it is not a terminal, else the attachment's name in the current directory)",
    )
    .option('--clobber', 'overwrite a local file of that name');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runAttachmentsDownload(
    { flow: positionals[0]!, path: positionals[1]!, output: flag.string(raw, 'output'), clobber: raw.clobber === true },
    ctx,
  );

/**
 * `GET /flows/{flow_id}/attachments/{attachment_id}/download`, streamed and hashed (runtime/download.ts).
 * Without -o the bytes go to stdout unless it is a terminal, so `svc attachments download f a.yml | less` pipes.
 */
export async function runAttachmentsDownload(options: AttachmentsDownloadOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const flow = await flowId(client, options.flow);
  const attachment = await attachmentAt(client, flow, options.path);
  const target = options.output ?? (ctx.io.stdoutIsTTY ? attachment.name : '-');
  await refuseExisting(target, options.clobber);
  const response = await client.open({
    method: 'GET',
    path: `${attachmentsPath(flow)}/${enc(attachment.id)}/download`,
    headers: { accept: '*/*' },
  });
  await saveDownload(ctx.io, response, target, attachment.sha256, attachment.path);
  if (target !== '-') ctx.io.err(`Downloaded ${attachment.path} to ${target} (${attachment.size_bytes} bytes).\n`);
}
