import { describe, expect, it } from 'vitest';
import { findUnstorableText, findUnstorableTextInJson } from '../src/shared/json/unstorable-text.js';

describe('findUnstorableText', () => {
  it('finds NUL and unpaired surrogates in strings and keys, with their path', () => {
    expect(findUnstorableText('a\u0000')).toEqual({ path: '', kind: 'nul' });
    expect(findUnstorableText({ a: [1, { b: 'x\ud800' }] })).toEqual({ path: 'a[1].b', kind: 'unpaired_surrogate' });
    expect(findUnstorableText({ 'k\udfff': 1 })).toEqual({ path: 'k\udfff', kind: 'unpaired_surrogate' });
    expect(findUnstorableText(['\udc00\ud800'])).toEqual({ path: '[0]', kind: 'unpaired_surrogate' });
  });

  it('passes paired surrogates, other control characters and non-strings', () => {
    expect(findUnstorableText({ a: '😀 \t\u0001', b: [true, null, 3.5], c: {} })).toBeUndefined();
  });

  it('looks only for the kinds asked for', () => {
    expect(findUnstorableText({ a: 'x\u0000', b: '\ud800' }, ['unpaired_surrogate'])).toEqual({ path: 'b', kind: 'unpaired_surrogate' });
    expect(findUnstorableText({ a: '\ud800' }, ['nul'])).toBeUndefined();
  });

  it('searches parsed JSON only when its text has a \\u escape, the only way JSON carries either', () => {
    // The value stands in for what the text parsed to: without an escape in the text it is not searched.
    expect(findUnstorableTextInJson('{"a":"plain"}', { a: 'x\u0000' })).toBeUndefined();
    expect(findUnstorableTextInJson('{"a":"x\\u0000"}', { a: 'x\u0000' })).toEqual({ path: 'a', kind: 'nul' });
  });
});
