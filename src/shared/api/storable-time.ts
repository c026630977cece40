import { z } from 'zod';

const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** PostgreSQL refuses a UTC offset past 15:59 ("time zone displacement out of range"). */
const STORABLE_OFFSET = /(?:Z|[+-](?:0\d|1[0-5]):[0-5]\d)$/;
const MESSAGE = 'a time from 1970 to 9999 (UTC), with an offset of at most 15:59';

const inRange = (value: string): boolean => {
  const at = Date.parse(value);
  return at >= EARLIEST && at <= LATEST;
};

/**
 * A time a request gives for the database to store or compare: ISO 8601 with an offset, from 1970 to the
 * end of 9999 (UTC), the offset at most 15:59. Well-formed times outside that reach the database as
 * nothing it can take (year 0, an offset of 16:00: a 500) or come back as another time (PGlite reads a
 * two-digit year as 19xx or 20xx); nothing on this platform happened before 1970.
 */
export const storableTime = z.iso
  .datetime({ offset: true, abort: true })
  .refine((value) => STORABLE_OFFSET.test(value) && inRange(value), MESSAGE);

/** A list filter's bound: a storable time, or a date counted as UTC midnight; as a Date. */
export const storableInstant = z
  .union([storableTime, z.iso.date({ abort: true }).refine(inRange, MESSAGE)])
  .transform((value) => new Date(value));
