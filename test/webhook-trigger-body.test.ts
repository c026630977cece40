import { describe, expect, it } from 'vitest';
import {
  MAX_LISTED_MISSING,
  decodeTriggerBody,
  parseTriggerBody,
  providerRefKey,
  resolveTargets,
  unknownReferencesMessage,
  type TriggerBody,
} from '../src/shared/webhooks/trigger-body.js';

const D1 = '6f1c6a52-5a1e-4a8e-9d4e-1b2c3d4e5f60';
const D2 = '7a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d';
const D3 = '8b3c4d5e-6f7a-4b2c-9d3e-4f5a6b7c8d9e';
const LIMITS = { maxTargets: 10_000 };

function parsed(body: unknown, limits = LIMITS): TriggerBody {
  const result = parseTriggerBody(body, limits);
  if (!result.ok) throw new Error(`refused: ${result.code} ${result.detail}`);
  return result;
}

const refused = (body: unknown, limits = LIMITS) => {
  const result = parseTriggerBody(body, limits);
  if (result.ok) throw new Error('accepted');
  return result;
};

describe('rule 1: the body is a JSON object, by default all params', () => {
  it('takes the whole object as params when it has neither params nor related_targets', () => {
    expect(parsed({ ticket: 'CHG-1', count: 3 })).toMatchObject({ params: { ticket: 'CHG-1', count: 3 }, targets: {}, providerRefs: [] });
  });

  it('refuses anything but an object with invalid_payload 422', () => {
    for (const body of [[], null, 'text', 42, true, [{ params: {} }]]) {
      expect(refused(body), JSON.stringify(body)).toMatchObject({
        status: 422,
        code: 'invalid_payload',
        extensions: { errors: [{ path: '' }] },
      });
    }
  });
});

describe('rule 2: params and related_targets', () => {
  it('uses only those keys when either is present', () => {
    expect(parsed({ params: { a: 1 }, other: 'ignored' })).toMatchObject({ params: { a: 1 }, targets: {} });
    expect(parsed({ related_targets: { leaf: [D1] }, other: 'ignored' })).toMatchObject({ params: {}, targets: { leaf: [D1] } });
  });

  it('refuses params that is not an object', () => {
    for (const params of [null, [], 'x', 1]) {
      expect(refused({ params }), JSON.stringify(params)).toMatchObject({
        status: 422,
        code: 'invalid_payload',
        extensions: { errors: [{ path: 'params' }] },
      });
    }
  });

  it('refuses related_targets that is not an object of arrays', () => {
    for (const related of [null, [], [D1], 'leaf']) {
      expect(refused({ related_targets: related })).toMatchObject({
        code: 'invalid_payload',
        extensions: { errors: [{ path: 'related_targets' }] },
      });
    }
    expect(refused({ related_targets: { leaf: D1 } })).toMatchObject({
      code: 'invalid_payload',
      extensions: { errors: [{ path: 'related_targets.leaf' }] },
    });
    expect(refused({ related_targets: { leaf: { provider_id: 'p', external_id: '1' } } })).toMatchObject({ code: 'invalid_payload' });
  });

  it('keeps every named role, an empty one too, and a role called __proto__ as a role', () => {
    const body = parsed(JSON.parse(`{"related_targets": {"leaf": [], "__proto__": ["${D1}"]}}`));
    expect(Object.keys(body.targets)).toEqual(['leaf', '__proto__']);
    expect(Object.getPrototypeOf(body.targets)).toBe(Object.prototype);
    expect(body.targets['__proto__']).toEqual([D1]);
  });
});

describe('rule 3: device references', () => {
  it('accepts device UUIDs (lower-cased, each once per role) and provider references', () => {
    const body = parsed({
      related_targets: {
        leaf: [D1, D1.toUpperCase(), { provider_id: 'netbox:dc1', external_id: '17' }],
        spine: [D1, { external_id: '18', provider_id: 'netbox:dc1' }],
      },
    });
    expect(body.targets).toEqual({ leaf: [D1], spine: [D1] });
    expect(body.providerRefs).toEqual([
      { role: 'leaf', provider_id: 'netbox:dc1', external_id: '17' },
      { role: 'spine', provider_id: 'netbox:dc1', external_id: '18' },
    ]);
  });

  it('refuses a bare integer external_id with external_id_not_text 422', () => {
    expect(refused({ related_targets: { leaf: [{ provider_id: 'netbox:dc1', external_id: 17 }] } })).toMatchObject({
      status: 422,
      code: 'external_id_not_text',
      extensions: { errors: [{ path: 'related_targets.leaf[0].external_id' }] },
    });
  });

  it('refuses every other malformed reference with invalid_payload, naming its path', () => {
    const cases: [unknown, string][] = [
      ['not-a-uuid', 'related_targets.leaf[0]'],
      [`${D1}x`, 'related_targets.leaf[0]'],
      [42, 'related_targets.leaf[0]'],
      [null, 'related_targets.leaf[0]'],
      [[D1], 'related_targets.leaf[0]'],
      [{ provider_id: 'netbox:dc1' }, 'related_targets.leaf[0].external_id'],
      [{ external_id: '17' }, 'related_targets.leaf[0].provider_id'],
      [{ provider_id: 7, external_id: '17' }, 'related_targets.leaf[0].provider_id'],
      [{ provider_id: '', external_id: '17' }, 'related_targets.leaf[0].provider_id'],
      [{ provider_id: 'netbox:dc1', external_id: '' }, 'related_targets.leaf[0].external_id'],
      [{ provider_id: 'netbox:dc1', external_id: null }, 'related_targets.leaf[0].external_id'],
      [{ provider_id: 'netbox:dc1', external_id: 'x'.repeat(256) }, 'related_targets.leaf[0].external_id'],
      [{ provider_id: 'netbox:dc1', external_id: '17', name: 'sw1' }, 'related_targets.leaf[0].name'],
    ];
    for (const [reference, path] of cases) {
      expect(refused({ related_targets: { leaf: [reference] } }), JSON.stringify(reference)).toMatchObject({
        status: 422,
        code: 'invalid_payload',
        extensions: { errors: [{ path }] },
      });
    }
  });

  it('answers the first problem in body order', () => {
    expect(refused({ related_targets: { leaf: [D1, 'bad', { provider_id: 'p', external_id: 1 }] } })).toMatchObject({
      code: 'invalid_payload',
      extensions: { errors: [{ path: 'related_targets.leaf[1]' }] },
    });
  });
});

describe('rule 5: at most 100 provider references across roles', () => {
  const refs = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ provider_id: 'netbox:dc1', external_id: String(from + i) }));

  it('accepts 100 and refuses 101 with too_many_provider_references 422', () => {
    expect(parsed({ related_targets: { leaf: refs(60), spine: refs(40, 60) } }).providerRefs).toHaveLength(100);
    expect(refused({ related_targets: { leaf: refs(60), spine: refs(41, 60) } })).toMatchObject({
      status: 422,
      code: 'too_many_provider_references',
      extensions: { limit: 100, count: 101 },
    });
  });

  it('counts references as sent, repeated ones too', () => {
    const same = Array.from({ length: 101 }, () => ({ provider_id: 'netbox:dc1', external_id: '1' }));
    expect(refused({ related_targets: { leaf: same } })).toMatchObject({ code: 'too_many_provider_references' });
  });
});

describe('rule 6: at most maxTargets targets, before any entry is read', () => {
  it('counts UUIDs and references together', () => {
    const limits = { maxTargets: 3 };
    expect(parsed({ related_targets: { leaf: [D1, D2], spine: [{ provider_id: 'p', external_id: '1' }] } }, limits).targets).toEqual({
      leaf: [D1, D2],
      spine: [],
    });
    expect(refused({ related_targets: { leaf: [D1, D2], spine: [D3, { provider_id: 'p', external_id: '1' }] } }, limits)).toMatchObject({
      status: 422,
      code: 'too_many_targets',
      extensions: { limit: 3, count: 4 },
    });
  });

  it('refuses an oversized list even when its entries are malformed', () => {
    expect(refused({ related_targets: { leaf: ['bad', 'bad', 'bad', 'bad'] } }, { maxTargets: 3 })).toMatchObject({
      code: 'too_many_targets',
    });
  });
});

describe('decodeTriggerBody', () => {
  it('parses UTF-8 JSON', () => {
    expect(decodeTriggerBody(Buffer.from('{"a":"grüße"}'))).toEqual({ ok: true, value: { a: 'grüße' } });
  });

  it('refuses bytes that are not UTF-8, broken JSON and an empty body with invalid_payload 422', () => {
    for (const raw of [Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), Buffer.from('{"a":'), Buffer.alloc(0)]) {
      expect(decodeTriggerBody(raw)).toMatchObject({ ok: false, status: 422, code: 'invalid_payload' });
    }
  });

  it('refuses a string no column can store, NUL or an unpaired surrogate, naming its path', () => {
    expect(decodeTriggerBody(Buffer.from('{"params":{"a":["x","y\\u0000"]}}'))).toMatchObject({
      ok: false,
      status: 422,
      code: 'invalid_payload',
      extensions: { errors: [{ path: 'params.a[1]' }] },
    });
    expect(decodeTriggerBody(Buffer.from('{"params":{"b\\udc00":1}}'))).toMatchObject({
      ok: false,
      code: 'invalid_payload',
      extensions: { errors: [{ path: 'params.b\udc00' }] },
    });
    // An escaped pair is one character, and an escaped backslash before "u0000" is text.
    expect(decodeTriggerBody(Buffer.from('{"a":"\\ud83d\\ude00","b":"\\\\u0000"}'))).toEqual({
      ok: true,
      value: { a: '😀', b: '\\u0000' },
    });
  });
});

describe('rule 7: resolveTargets and the unknown-reference message', () => {
  const body = parsed({
    related_targets: {
      leaf: [D1, { provider_id: 'netbox:dc1', external_id: '17' }],
      spine: [D2, { provider_id: 'netbox:dc1', external_id: '18' }],
    },
  });

  it('merges given UUIDs and resolved references per role, each once', () => {
    const result = resolveTargets(body, {
      liveIds: new Set([D1, D2]),
      byProviderRef: new Map([
        [providerRefKey({ provider_id: 'netbox:dc1', external_id: '17' }), D3],
        [providerRefKey({ provider_id: 'netbox:dc1', external_id: '18' }), D2],
      ]),
    });
    expect(result).toEqual({ ok: true, targets: { leaf: [D1, D3], spine: [D2] } });
  });

  it("accepts the directory's list of live ids as well as a set", () => {
    const lookups = {
      liveIds: [D1, D2],
      byProviderRef: new Map([
        [providerRefKey({ provider_id: 'netbox:dc1', external_id: '17' }), D3],
        [providerRefKey({ provider_id: 'netbox:dc1', external_id: '18' }), D3],
      ]),
    };
    expect(resolveTargets(body, lookups)).toEqual({ ok: true, targets: { leaf: [D1, D3], spine: [D2, D3] } });
  });

  it("refuses with 400 unknown_device_reference in the spec's exact words", () => {
    const result = resolveTargets(body, {
      liveIds: new Set([D1, D2]),
      byProviderRef: new Map([[providerRefKey({ provider_id: 'netbox:dc1', external_id: '18' }), D2]]),
    });
    expect(result).toMatchObject({
      ok: false,
      status: 400,
      code: 'unknown_device_reference',
      extensions: { missing: [{ role: 'leaf', provider_id: 'netbox:dc1', external_id: '17' }], missing_count: 1 },
    });
    if (!result.ok)
      expect(result.detail).toBe(
        "related_targets names devices not in this organization's inventory: leaf: provider_id='netbox:dc1' external_id='17'",
      );
  });

  it('lists several, unknown UUIDs included, joined with "; "', () => {
    const result = resolveTargets(body, { liveIds: new Set([D1]), byProviderRef: new Map() });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.detail).toBe(
        "related_targets names devices not in this organization's inventory: " +
          `spine: device_id='${D2}'; leaf: provider_id='netbox:dc1' external_id='17'; spine: provider_id='netbox:dc1' external_id='18'`,
      );
    }
  });

  it('escapes quotes, backslashes and control characters, and counts what it does not list', () => {
    expect(unknownReferencesMessage([{ role: 'leaf', provider_id: "it's\\", external_id: 'a\nb' }])).toBe(
      "related_targets names devices not in this organization's inventory: leaf: provider_id='it\\'s\\\\' external_id='a\\x0ab'",
    );
    const many = Array.from({ length: MAX_LISTED_MISSING + 5 }, (_, i) => ({ role: 'leaf', provider_id: 'p', external_id: String(i) }));
    const message = unknownReferencesMessage(many);
    expect(message.split('; ')).toHaveLength(MAX_LISTED_MISSING + 1);
    expect(message.endsWith('; and 5 more')).toBe(true);
  });
});
