import { z } from 'zod';

/** Query schemas the routes of several domains share. */

/** A route that takes no query says so: an unknown parameter is refused rather than ignored. */
export const noQuery = z.object({}).strict();

/** A whole number written in the query (decimal digits only), at most `max`. */
export const queryNumber = (max: number) =>
  z
    .string()
    .regex(/^\d{1,7}$/)
    .transform(Number)
    .pipe(z.number().int().min(0).max(max));

export const MAX_PAGE = 500;

/** `limit` (50 unless given, 1 to 500) and `offset` (0 unless given) of a paged list. */
export const pageShape = {
  limit: queryNumber(MAX_PAGE).pipe(z.number().min(1)).default(50),
  offset: queryNumber(10_000_000).default(0),
};
