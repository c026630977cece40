import { Command, Option } from 'commander';
import type { Dispatch } from '../registry.js';

/**
 * `svc webhooks`: names, flags and help only (each verb's module loads when it runs). ENDPOINT is an
 * endpoint id or the exact name of one endpoint of the organization (`--org`, else the default one).
 */
const collect = (value: string, previous: string[] = []) => [...previous, value];
const json = (c: Command) => c.option('--json', "print JSON (the API's field names)");
const yes = (c: Command) => c.option('-y, --yes', 'do not ask for confirmation (required without a terminal)');
const endpoint = (c: Command) => c.argument('<endpoint>', 'endpoint id, or its name');

/** The field flags create and update share. */
function fieldOptions(c: Command): Command {
  return c
    .option('--name <name>', 'label (the endpoint is addressed by its token, not its name)')
    .option('--description <text>', 'description')
    .option('--flow <flow_id>', 'the flow a trigger starts')
    .option('--flow-version <n>', 'pin this committed version (default: the newest committed)')
    .option('--secret <secret_id>', 'the secret holding the signing key (hmac_sha256) or the bearer token')
    .option('--rate <per_minute>', 'deliveries accepted per minute (default 60)')
    .option('--replay-window <seconds>', 'how far a signed timestamp may be from now (default 300)')
    .addOption(
      new Option('--allow <cidr>', 'accept triggers only from these addresses or CIDR blocks (repeat, or comma-separate)').argParser(
        collect,
      ),
    )
    .option('--payload-mapping <json>', 'payload_mapping_json, a JSON object (stored, not applied by the trigger)');
}

export function registerWebhooks(program: Command, dispatch: Dispatch): void {
  const webhooks = program
    .command('webhooks')
    .description('Webhook endpoints of the organization given by --org (default: the default organization), and sending to them.');

  json(fieldOptions(webhooks.command('create').description('Create an endpoint; prints its trigger URL and how to send to it.')))
    .addOption(
      new Option('--auth-mode <mode>', 'how senders authenticate; fixed at creation (default hmac_sha256)').choices([
        'hmac_sha256',
        'bearer',
      ]),
    )
    .option('--disabled', 'create it disabled (its trigger answers 404 until enabled)')
    .action(
      dispatch(async () => {
        const m = await import('./create.js');
        return ({ raw, ctx }) => m.runWebhooksCreate(m.parseWebhooksCreateOptions(raw), ctx);
      }),
    );
  json(webhooks.command('list').description("The organization's endpoints."))
    .option('--include-deleted', 'also soft-deleted ones')
    .action(
      dispatch(async () => {
        const m = await import('./list.js');
        return ({ raw, ctx }) => m.runWebhooksList(m.parseWebhooksListOptions(raw), ctx);
      }),
    );
  json(endpoint(webhooks.command('get').description('One endpoint, with its trigger URL.'))).action(
    dispatch(async () => {
      const m = await import('./get.js');
      return ({ positionals, raw, ctx }) => m.runWebhooksGet(m.parseWebhooksGetOptions(positionals[0]!, raw), ctx);
    }),
  );
  json(fieldOptions(endpoint(webhooks.command('update').description('Change an endpoint (the auth mode is fixed at creation).'))))
    .option('--enable', 'enable it')
    .option('--disable', 'disable it (its trigger answers 404)')
    .option('--clear-allow-list', 'accept triggers from any address')
    .option('--unpin', 'run the newest committed flow version again')
    .action(
      dispatch(async () => {
        const m = await import('./update.js');
        return ({ positionals, raw, ctx }) => m.runWebhooksUpdate(m.parseWebhooksUpdateOptions(positionals[0]!, raw), ctx);
      }),
    );
  yes(json(endpoint(webhooks.command('delete').description('Soft-delete an endpoint (its trigger answers 404; restorable).')))).action(
    dispatch(async () => {
      const m = await import('./delete.js');
      return ({ positionals, raw, ctx }) => m.runWebhooksDelete(m.parseWebhooksDeleteOptions(positionals[0]!, raw), ctx);
    }),
  );
  json(endpoint(webhooks.command('restore').description('Bring back a soft-deleted endpoint (same trigger URL).'))).action(
    dispatch(async () => {
      const m = await import('./restore.js');
      return ({ positionals, raw, ctx }) => m.runWebhooksRestore(m.parseWebhooksRestoreOptions(positionals[0]!, raw), ctx);
    }),
  );
  yes(json(endpoint(webhooks.command('purge').description('Remove an endpoint for good, with its delivery journal.')))).action(
    dispatch(async () => {
      const m = await import('./purge.js');
      return ({ positionals, raw, ctx }) => m.runWebhooksPurge(m.parseWebhooksPurgeOptions(positionals[0]!, raw), ctx);
    }),
  );
  yes(
    json(endpoint(webhooks.command('rotate-secret').description('Link another secret; a cutover: only the new one verifies afterwards.'))),
  )
    .option('--secret <secret_id>', 'the new secret (required)')
    .action(
      dispatch(async () => {
        const m = await import('./rotate-secret.js');
        return ({ positionals, raw, ctx }) => m.runWebhooksRotateSecret(m.parseWebhooksRotateSecretOptions(positionals[0]!, raw), ctx);
      }),
    );
  json(
    endpoint(
      webhooks.command('test').description('Check the configuration as a trigger would (sends nothing); exit 1 when it would refuse.'),
    ),
  ).action(
    dispatch(async () => {
      const m = await import('./test.js');
      return ({ positionals, raw, ctx }) => m.runWebhooksTest(m.parseWebhooksTestOptions(positionals[0]!, raw), ctx);
    }),
  );
  json(endpoint(webhooks.command('deliveries').description("The endpoint's delivery journal, newest first (never the bodies).")))
    .option('--limit <n>', 'at most this many (1-500, default 50)')
    .option('--offset <n>', 'skip this many')
    .action(
      dispatch(async () => {
        const m = await import('./deliveries.js');
        return ({ positionals, raw, ctx }) => m.runWebhooksDeliveries(m.parseWebhooksDeliveriesOptions(positionals[0]!, raw), ctx);
      }),
    );

  webhooks
    .command('send')
    .description('POST a JSON payload to a webhook trigger as an external system would: signed or with a bearer, without your login.')
    .option('--token <path_token>', "the endpoint's path token, sent to <server>/hooks/<path_token> (--server or the profile's server)")
    .option('--url <url>', 'the full trigger URL instead (e.g. behind a proxy prefix: https://host/api/hooks/<path_token>)')
    .option('--data <json>', 'the payload')
    .option('--file <path>', 'the payload from a file, or - for standard input')
    .option('--secret-env <var>', 'sign (hmac_sha256) with the secret in this environment variable')
    .option('--secret-file <path>', 'sign with the secret in this file')
    .option('--bearer-env <var>', 'send Authorization: Bearer with the token in this environment variable (bearer mode)')
    .option('--bearer-file <path>', 'the same with the token in this file')
    .option('--idempotency-key <key>', 'sent as X-Idempotency-Key (a retry with the same key answers 409 with the first delivery)')
    .option('--timestamp <epoch>', 'X-Service-Timestamp to sign with, Unix seconds (default: now)')
    .option('--timeout <seconds>', 'give up waiting for the answer after this long', '30')
    .option('--json', "print the answer's body")
    .addHelpText(
      'after',
      '\nSecrets are read from a variable or a file, never from a flag value: a flag would land in shell history and in `ps`.',
    )
    .action(
      dispatch(async () => {
        const m = await import('./send.js');
        return ({ raw, ctx }) => m.runWebhooksSend(m.parseWebhooksSendOptions(raw), ctx);
      }),
    );
}
