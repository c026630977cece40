import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { endpointArgument, endpointId } from './resolve.js';
import type { Endpoint } from './types.js';

export interface WebhooksRotateSecretOptions {
  readonly endpoint: string;
  /** The id of the secret to link (a secret of the organization, made beforehand). */
  readonly secretId: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(jsonFlag(endpointArgument(command.description('Link another secret; a cutover: only the new one verifies afterwards.')))).option(
    '--secret <secret_id>',
    'the new secret (required)',
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runWebhooksRotateSecret(parseWebhooksRotateSecretOptions(positionals[0]!, raw), ctx);

export function parseWebhooksRotateSecretOptions(endpoint: string, raw: Record<string, unknown>): WebhooksRotateSecretOptions {
  const secretId = flag.string(raw, 'secret');
  if (secretId === undefined)
    throw usageError('svc webhooks rotate-secret needs the new secret', 'pass --secret SECRET_ID (create the secret first)');
  return { endpoint, secretId, yes: flag.yes(raw), json: flag.json(raw) };
}

/**
 * `POST /webhooks/{webhook_id}/rotate-secret`. A cutover, not an overlap: from the answer on only the
 * new secret verifies, so it asks first, like the other verbs that break senders.
 */
export async function runWebhooksRotateSecret(options: WebhooksRotateSecretOptions, ctx: Context): Promise<void> {
  await confirmDestructive(
    ctx.io,
    `Rotate the secret of webhook endpoint ${options.endpoint} to ${options.secretId} (senders using the old secret are refused from now on)`,
    options.yes,
  );
  const client = ctx.apiClient();
  const id = await endpointId(client, options.endpoint);
  const endpoint = (
    await client.request({ method: 'POST', path: `/webhooks/${enc(id)}/rotate-secret`, body: { new_secret_id: options.secretId } })
  ).body as Endpoint;
  if (options.json) printJson(ctx.io, endpoint);
  else ctx.io.err(`Rotated the secret of webhook endpoint ${endpoint.name} (${endpoint.id}): now ${endpoint.secret_id}.\n`);
}
