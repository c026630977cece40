import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented worker token with the configured one in constant time. Both are hashed first,
 * so inputs of any length compare in the same time and never throw.
 */
export function internalTokenMatches(presented: string | string[] | undefined, expected: string): boolean {
  if (typeof presented !== 'string' || presented === '') return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
