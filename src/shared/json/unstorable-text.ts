/**
 * Text PostgreSQL cannot store: NUL (text and jsonb refuse it) and UTF-16 surrogates without their pair
 * (not Unicode: jsonb refuses their escapes, and text would store U+FFFD in their place). JSON carries
 * either only as a `\u` escape, which is why a body without one needs no search.
 */
export type UnstorableText = 'nul' | 'unpaired_surrogate';

const UNPAIRED = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const EVERY_UNPAIRED = new RegExp(UNPAIRED.source, 'g');

export const UNSTORABLE_TEXT_MESSAGES: Readonly<Record<UnstorableText, string>> = {
  nul: 'must not contain NUL (\\u0000)',
  unpaired_surrogate: 'must not contain an unpaired UTF-16 surrogate',
};

function kindOf(text: string, kinds: readonly UnstorableText[]): UnstorableText | undefined {
  return kinds.find((kind) => (kind === 'nul' ? text.includes('\u0000') : UNPAIRED.test(text)));
}

/** Whether JSON text may hold unstorable text once parsed (it has a `\u` escape). */
function mayHoldUnstorableText(json: string): boolean {
  return json.includes('\\u');
}

/**
 * The first string (object keys included) of a parsed JSON value that is unstorable text, with its
 * path below the value (`a.b[2]`, empty for the value itself) and which of `kinds` it is.
 */
export function findUnstorableText(
  value: unknown,
  kinds: readonly UnstorableText[] = ['nul', 'unpaired_surrogate'],
  path = '',
): { readonly path: string; readonly kind: UnstorableText } | undefined {
  if (typeof value === 'string') {
    const kind = kindOf(value, kinds);
    return kind ? { path, kind } : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = findUnstorableText(value[i], kinds, `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, member] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const kind = kindOf(key, kinds);
    if (kind) return { path: at, kind };
    const found = findUnstorableText(member, kinds, at);
    if (found) return found;
  }
  return undefined;
}

/** `findUnstorableText` of `value`, parsed from the JSON text `json`, searched only when the text could hold any. */
export function findUnstorableTextInJson(
  json: string,
  value: unknown,
  kinds?: readonly UnstorableText[],
): { readonly path: string; readonly kind: UnstorableText } | undefined {
  return mayHoldUnstorableText(json) ? findUnstorableText(value, kinds) : undefined;
}

/** Text PostgreSQL can store: NUL removed, an unpaired surrogate replaced by U+FFFD. */
function storableText(text: string): string {
  return text.replaceAll('\u0000', '').replaceAll(EVERY_UNPAIRED, '\ufffd');
}

/**
 * JSON from outside (an inventory provider's `attributes`, an object's `data`) as jsonb can hold it: every
 * string, keys included, made storable (`storableText`) rather than refused, since refusing would fail a
 * whole page of someone else's data; the rest as it is.
 */
export function storableJson(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (
    typeof value !== 'object' ||
    value === null ||
    (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
  )
    return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [storableText(key), storableJson(member)]));
}
