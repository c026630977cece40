import { problem } from '../../shared/api/problem.js';
import type { ProblemCode } from '../../shared/api/problem-codes.js';

/**
 * 413 `code` (`limit`, `count`) when the body's array `field` holds more than `limit` items: checked on the
 * body as sent, before its items are validated (a huge batch costs no per-item work). A route's `preValidation`.
 */
export function refuseOversizedBatch(body: unknown, batch: { field: string; limit: number; code: ProblemCode; noun: string }): void {
  const items = (body as Record<string, unknown> | undefined)?.[batch.field];
  if (Array.isArray(items) && items.length > batch.limit) {
    throw problem(batch.code, `A batch holds at most ${batch.limit} ${batch.noun}.`, { limit: batch.limit, count: items.length });
  }
}
