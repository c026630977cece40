import type { Command } from 'commander';
import { CliError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { destinationId } from './fields.js';
import type { TestAnswer } from './types.js';

export interface DestinationsTestOptions {
  readonly destination: string;
  readonly message: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Send a real test message to a destination now and show what its receiver answered; exit 1 when it was not delivered.')
      .argument('<destination>', 'destination id, or its name')
      .option('--message <text>', 'the message to send'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runDestinationsTest(parseDestinationsTestOptions(positionals[0]!, raw), ctx);

export function parseDestinationsTestOptions(destination: string, raw: Record<string, unknown>): DestinationsTestOptions {
  return { destination, message: flag.string(raw, 'message'), json: flag.json(raw) };
}

/** `POST /notifications/destinations/{id}/test`: the answer goes to stdout either way; not delivered exits 1. */
export async function runDestinationsTest(options: DestinationsTestOptions, ctx: Context): Promise<void> {
  const body = options.message === undefined ? {} : { message: options.message };
  const client = ctx.apiClient();
  const id = await destinationId(client, options.destination);
  const answer = (await client.request({ method: 'POST', path: `/notifications/destinations/${enc(id)}/test`, body })).body as TestAnswer;
  if (options.json) printJson(ctx.io, answer);
  else
    printRecord(ctx.io, [
      ['delivered', answer.delivered ? 'yes' : 'no'],
      ['outcome', answer.outcome],
      ['status_code', answer.status_code === null ? null : String(answer.status_code)],
      ['reason', answer.reason],
      ['detail', answer.detail],
      ['idempotency_key', answer.idempotency_key],
    ]);
  if (!answer.delivered) throw new CliError('error', `the test message was not delivered (${answer.reason ?? answer.outcome})`);
}
