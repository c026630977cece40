import type { RunEvent } from '../../../shared/api/run-events.js';
import { CliError } from '../../errors.js';
import { followRunEvents, type FollowOptions, type StreamItem } from '../../http/run-event-stream.js';
import type { Context } from '../../runtime/context.js';

/** How a followed run ended: its final status, or `undefined` when following stopped first (Ctrl-C, the view closed). */
export type Ending = string | undefined;

/** What a follower is told as the run goes. */
export interface FollowHandlers {
  event(event: RunEvent): void;
  reconnecting?(item: Extract<StreamItem, { kind: 'reconnecting' }>): void;
}

/**
 * Follows a run over its live stream until it ends, handing each event to `handlers`. Ctrl-C
 * (`ctx.signal`) or `signal` stop following and leave the run as it is.
 */
export async function followRun(
  ctx: Context,
  runId: string,
  handlers: FollowHandlers,
  options: Omit<FollowOptions, 'signal'> & { readonly signal?: AbortSignal } = {},
): Promise<Ending> {
  const signal = options.signal === undefined ? ctx.signal : AbortSignal.any([ctx.signal, options.signal]);
  for await (const item of followRunEvents(ctx.apiClient(), runId, { ...options, signal })) {
    if (item.kind === 'event') handlers.event(item.event);
    else if (item.kind === 'reconnecting') handlers.reconnecting?.(item);
    else return item.status;
  }
  return undefined;
}

/** Reconnections said on stderr, where they do not mix with a command's data. */
export const sayReconnecting = (ctx: Context) => (item: Extract<StreamItem, { kind: 'reconnecting' }>) =>
  ctx.io.err(`stream lost (${item.reason}); reconnecting after event ${item.after} in ${(item.delayMs / 1000).toFixed(1)} s\n`);

/**
 * The exit of a command that followed a run: nothing for succeeded (0); exit 7 for failed, 8 for
 * cancelled; on Ctrl-C a word that the run goes on, then 130. Any other end status (the stream's
 * `end` always names a terminal one) is an error.
 */
export function endFollowing(ctx: Context, runId: string, ending: Ending): void {
  if (ending === undefined) {
    ctx.io.err(`Stopped following run ${runId}; the run goes on (svc runs watch ${runId}, svc runs cancel ${runId}).\n`);
    throw new CliError('interrupted', 'interrupted');
  }
  if (ending === 'succeeded') return;
  if (ending === 'failed') throw new CliError('run_failed', `run ${runId} failed`, { hint: `svc runs get ${runId}` });
  if (ending === 'cancelled') throw new CliError('run_cancelled', `run ${runId} was cancelled`);
  throw new CliError('error', `run ${runId} ended ${ending}`);
}
