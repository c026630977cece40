import type { Command } from 'commander';
import { CliError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { enc } from '../shared.js';
import type { AttachmentList, FlowAttachment } from './types.js';

const PAGE = 500;

/** FLOW, the first argument of every attachments verb (resolved as the run verbs resolve it). */
export const flowArgument = (command: Command) => command.argument('<flow>', 'flow id, or its name');

/** The path of the flow's attachments route. */
export const attachmentsPath = (flowId: string) => `/flows/${enc(flowId)}/attachments`;

/**
 * The flow's attachment at `path` (exactly), else exit 3. The list is narrowed to the path's folder and
 * to paths containing it, then paged, so a flow with many attachments is not read whole.
 */
export async function attachmentAt(client: ApiClient, flowId: string, path: string): Promise<FlowAttachment> {
  const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : undefined;
  for (let offset = 0; ; offset += PAGE) {
    const query: Record<string, string> = { q: path, limit: String(PAGE), offset: String(offset) };
    if (folder !== undefined) query.folder = folder;
    const page = (await client.request({ method: 'GET', path: attachmentsPath(flowId), query })).body as AttachmentList;
    const found = page.items.find((a) => a.path === path);
    if (found) return found;
    if (offset + page.items.length >= page.total || page.items.length === 0)
      throw new CliError('not_found', `the flow has no attachment at "${path}"`);
  }
}
