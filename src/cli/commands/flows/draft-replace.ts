import type { FlowSummary } from '../../../shared/api/flows.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flowId } from '../runs/resolve.js';
import { enc } from '../shared.js';

/**
 * `POST /flows/{flow_id}/<action>` of the verbs that replace a flow's draft with a committed version
 * (`revert-draft`, `restore/{version}`): FLOW resolved as `svc runs start` resolves it; the flow's id on
 * stdout and what the draft now is on stderr, `--json` the flow.
 */
export async function replaceDraft(ctx: Context, flow: string, action: string, json: boolean): Promise<void> {
  const client = ctx.apiClient();
  const id = await flowId(client, flow);
  const answer = (await client.request({ method: 'POST', path: `/flows/${enc(id)}/${action}` })).body as FlowSummary;
  ctx.io.err(`The draft of flow ${id} ${answer.draft_dirty ? 'differs from' : 'is'} version ${answer.latest_version}.\n`);
  if (json) printJson(ctx.io, answer);
  else ctx.io.out(`${id}\n`);
}
