import { z } from 'zod';
import { isUuid } from '../ids.js';

/**
 * A resource id in a path. A UUID in capitals finds its row (uuid columns compare without regard to case)
 * but, carried on as the path spells it, misses everything that compares text: storage keys, audit
 * `resource_id`, NOTIFY payloads and in-memory keys, ids compared in code. So a UUID comes out in the
 * lower case the database answers with; anything else passes as written, to be no such resource (404).
 */
export const pathId = z.string().transform(lowerIfUuid);

/** A UUID in the lower case the database answers with; any other text as written. */
export function lowerIfUuid(value: string): string {
  return isUuid(value) ? value.toLowerCase() : value;
}

/** Any UUID PostgreSQL accepts (as `isUuid` does for path ids) in a body or query, in the lower case the database answers with. */
export const uuid = z.guid().transform((v) => v.toLowerCase());
