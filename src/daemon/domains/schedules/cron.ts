import { Cron } from 'croner';
import cronstrue from 'cronstrue';
import { problem, type Problem } from '../../../shared/api/problem.js';

/** The five fields of an expression, in order, as a refusal names them. */
const FIELDS = ['minute', 'hour', 'day_of_month', 'month', 'day_of_week'] as const;

/**
 * A cron expression in a time zone, parsed by croner: Vixie cron's rules (day of month OR day of week
 * when both are restricted; a local time the spring change skips fires at the first time after the gap,
 * one repeated by the autumn change fires once). Fire times are instants (`Date`).
 */
export class CronClock {
  readonly #cron: Cron;

  private constructor(
    readonly expression: string,
    readonly timezone: string,
  ) {
    this.#cron = new Cron(expression, { paused: true, timezone, domAndDow: false });
  }

  /**
   * The expression checked field by field, so a refusal names the field at fault; 422 `invalid_cron` or
   * `unknown_timezone`. The clock's `timezone` is the zone's own spelling (`Europe/Paris` for `europe/paris`).
   */
  static parse(expression: string, given: string): CronClock {
    const timezone = checkedTimezone(given);
    const trimmed = expression.trim();
    if (!trimmed.startsWith('@')) {
      const parts = trimmed.split(/\s+/);
      if (parts.length !== FIELDS.length)
        throw invalidCron('expression', `needs exactly five fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
      for (const [i, field] of FIELDS.entries()) {
        const alone = FIELDS.map((_, j) => (j === i ? parts[i] : '*')).join(' ');
        const fault = croneRefusal(alone);
        if (fault !== undefined) throw invalidCron(field, fault);
      }
    }
    const fault = croneRefusal(trimmed);
    if (fault !== undefined) throw invalidCron('expression', fault);
    const clock = new CronClock(trimmed, timezone);
    if (clock.next(new Date()) === null) throw invalidCron('expression', 'never fires');
    return clock;
  }

  /** An expression and zone already checked when they were stored (a fire's): croner alone, no field-by-field check. */
  static stored(expression: string, timezone: string): CronClock {
    return new CronClock(expression, timezone);
  }

  /** The first fire time strictly after `after`, or null when there is none. */
  next(after: Date): Date | null {
    return this.#cron.nextRun(after);
  }

  /** The next `count` fire times strictly after `after`. */
  nextRuns(count: number, after: Date): Date[] {
    return this.#cron.nextRuns(count, after);
  }

  /** Up to `count` of the newest fire times at or before `until`, oldest first. */
  latest(count: number, until: Date): Date[] {
    return this.#cron.previousRuns(count, new Date(until.getTime() + 1)).reverse();
  }

  /** The expression in words (cronstrue), 24-hour clock. */
  describe(): string {
    return describeCron(this.expression);
  }
}

export function describeCron(expression: string): string {
  try {
    return cronstrue.toString(expression, { use24HourTimeFormat: true, verbose: false });
  } catch {
    return expression;
  }
}

/**
 * `timezone` as the time zone database spells it when it differs from that only in case (`europe/paris`);
 * an alias (`US/Eastern`) as given, its user's choice; undefined when the runtime does not know it.
 */
export function spelledTimezone(timezone: string): string | undefined {
  let spelled: string;
  try {
    spelled = new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  return spelled.toLowerCase() === timezone.toLowerCase() ? spelled : timezone;
}

/** The zone as `spelledTimezone` spells it; 422 `unknown_timezone` unless the runtime knows it. */
function checkedTimezone(timezone: string): string {
  const spelled = spelledTimezone(timezone);
  if (spelled === undefined)
    throw problem('unknown_timezone', `${timezone} is not a known IANA time zone.`, {
      errors: [{ path: 'timezone', message: 'is not a known IANA time zone' }],
    });
  return spelled;
}

/** `at` as ISO 8601 local time in `timezone`, with that zone's offset then (`2026-03-29T03:00:00+02:00`). */
export function zonedIso(at: Date, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).replace('GMT', '');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}

function croneRefusal(expression: string): string | undefined {
  try {
    new Cron(expression, { paused: true, domAndDow: false });
    return undefined;
  } catch (error) {
    return String((error as Error).message).replace(/^CronPattern:\s*/, '');
  }
}

function invalidCron(field: string, message: string): Problem {
  return problem('invalid_cron', `The cron expression is invalid (${field}): ${message}`, {
    field,
    errors: [{ path: 'cron', message: `${field}: ${message}` }],
  });
}
