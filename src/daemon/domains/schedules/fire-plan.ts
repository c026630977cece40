import type { MisfirePolicy } from '../../../shared/api/schedules.js';
import type { CronClock } from './cron.js';

/** What a look at a due schedule does: skip missed times (moving `next_fire_at` to `skipTo`), then fire `fires` in order. */
export interface FirePlan {
  /** Where `next_fire_at` moves before any fire, past missed times the policy does not run; absent: no skip. */
  readonly skipTo?: Date | null;
  /** The newest time skipped. */
  readonly skippedUntil?: Date;
  readonly fires: readonly Date[];
}

/**
 * The fire times due at `now` for a schedule whose next fire time is `fence`, as its misfire policy says
 * (Kestra's recoverMissedSchedules): `last` fires the newest due time once and skips older ones; `none`
 * fires the newest only while it is on time (no older than `graceMs`), else skips them all; `all` fires
 * each due time, oldest first, at most the newest `catchUpMax`. One due time on time is fired by all three.
 */
export function planFires(
  clock: CronClock,
  policy: MisfirePolicy,
  fence: Date,
  now: Date,
  settings: { readonly graceMs: number; readonly catchUpMax: number },
): FirePlan {
  const late = now.getTime() - fence.getTime();
  // The common case, nothing missed: the fence is the only due time.
  const after = clock.next(fence);
  if (after === null || after > now) {
    return policy === 'none' && late > settings.graceMs ? { skipTo: after, skippedUntil: fence, fires: [] } : { fires: [fence] };
  }
  const keep = policy === 'all' ? settings.catchUpMax : 1;
  const latest = clock.latest(keep, now).filter((at) => at >= fence);
  // The fence is a fire time of the expression (it is computed whenever the expression changes).
  if (latest.length === 0) return { fires: [fence] };
  const newest = latest.at(-1)!;
  if (policy === 'none' && now.getTime() - newest.getTime() > settings.graceMs) {
    return { skipTo: clock.next(now), skippedUntil: newest, fires: [] };
  }
  const first = latest[0]!;
  const fires = [first];
  for (let at = clock.next(first); fires.length < keep && at !== null && at <= now; at = clock.next(at)) fires.push(at);
  if (first.getTime() === fence.getTime()) return { fires };
  return { skipTo: first, skippedUntil: clock.latest(1, new Date(first.getTime() - 1))[0] ?? fence, fires };
}
