import type { FlowSummary } from '../../../shared/api/flows.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flowId } from '../runs/resolve.js';
import { enc } from '../shared.js';

/**
 * `POST /flows/{flow_id}/<action>` of the verbs that replace a flow's draft with a committed version
 * (`revert-draft`, `restore/{version}`): FLOW resolved as `svc runs start` resolves it; the flow's id on
 * stdout and `done`'s sentence on stderr, `--json` the flow.
 */
export async function replaceDraft(
  ctx: Context,
  options: { readonly flow: string; readonly action: string; readonly json: boolean },
  done: (flow: FlowSummary) => string,
): Promise<void> {
  const client = ctx.apiClient();
  const id = await flowId(client, options.flow);
  const answer = (await client.request({ method: 'POST', path: `/flows/${enc(id)}/${options.action}` })).body as FlowSummary;
  ctx.io.err(`${done(answer)}\n`);
  if (options.json) printJson(ctx.io, answer);
  else ctx.io.out(`${id}\n`);
}
