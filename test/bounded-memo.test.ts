import { expect, it } from 'vitest';
import { boundedMemo } from '../src/shared/bounded-memo.js';

it('computes once per key, and forgets everything once it holds as many keys as it keeps', () => {
  const computed: string[] = [];
  const upper = boundedMemo((key) => {
    computed.push(key);
    return key.toUpperCase();
  }, 2);
  expect([upper('a'), upper('b'), upper('a')]).toEqual(['A', 'B', 'A']);
  expect(computed).toEqual(['a', 'b']);
  expect(upper('c')).toBe('C'); // the third key: the memo starts over with it
  expect(upper('a')).toBe('A');
  expect(computed).toEqual(['a', 'b', 'c', 'a']);
});
