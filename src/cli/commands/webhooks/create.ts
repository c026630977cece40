import { Option, type Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson, styles } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { withFlowId } from '../runs/resolve.js';
import { endpointFieldFlags, endpointFields, type EndpointFields } from './fields.js';
import { triggerUrl } from './resolve.js';
import type { Endpoint } from './types.js';

export interface WebhooksCreateOptions {
  readonly body: EndpointFields & { name: string; flow_id: string };
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(endpointFieldFlags(command.description('Create an endpoint; prints its trigger URL and how to send to it.')))
    .addOption(
      new Option('--auth-mode <mode>', 'how senders authenticate; fixed at creation (default hmac_sha256)').choices([
        'hmac_sha256',
        'bearer',
      ]),
    )
    .option('--disabled', 'create it disabled (its trigger answers 404 until enabled)');
}

export const invoke: Invoke = ({ raw, ctx }) => runWebhooksCreate(parseWebhooksCreateOptions(raw), ctx);

export function parseWebhooksCreateOptions(raw: Record<string, unknown>): WebhooksCreateOptions {
  const fields = endpointFields(raw);
  if (fields.name === undefined) throw usageError('svc webhooks create needs a name', 'pass --name NAME');
  if (fields.flow_id === undefined) throw usageError('svc webhooks create needs the flow to trigger', 'pass --flow FLOW');
  const authMode = flag.string(raw, 'authMode');
  if (authMode !== undefined) fields.auth_mode = authMode;
  if (raw.disabled === true) fields.enabled = false;
  return { body: { ...fields, name: fields.name, flow_id: fields.flow_id }, json: flag.json(raw) };
}

/** What to run to send a first delivery, with the credential flag of the endpoint's mode. */
function sendHint(url: string, authMode: string): string {
  const credential = authMode === 'bearer' ? '--bearer-env HOOK_TOKEN' : '--secret-env HOOK_SECRET';
  return `svc webhooks send --url ${url} --data '{"params": {}}' ${credential}`;
}

/**
 * `POST /webhooks`. The trigger URL alone on stdout (so `URL=$(svc webhooks create …)` works), the
 * record and how to send to it on stderr; `--json` prints the daemon's answer instead.
 */
export async function runWebhooksCreate(options: WebhooksCreateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const body = await withFlowId(client, options.body);
  const created = (await client.request({ method: 'POST', path: '/webhooks', body })).body as Endpoint;
  const url = await triggerUrl(ctx, created.trigger_path);
  const s = styles(ctx.io.colorErr);
  ctx.io.err(
    `Created webhook endpoint ${created.name} (${created.id}) triggering ${created.flow_name ?? created.flow_id}, ${created.auth_mode}${created.enabled ? '' : ', disabled'}.\n`,
  );
  ctx.io.err(`Trigger URL: ${url}\n`);
  if (created.secret_id === null) {
    ctx.io.err(
      `${s.yellow('warning')}: no secret is linked, so every trigger is refused; link one with svc webhooks rotate-secret ${created.id} --secret SECRET_ID\n`,
    );
  }
  ctx.io.err(`Send a test delivery (the secret's value in the variable): ${sendHint(url, created.auth_mode)}\n`);
  if (options.json) printJson(ctx.io, created);
  else ctx.io.out(`${url}\n`);
}
