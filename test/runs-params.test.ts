import { describe, expect, it } from 'vitest';
import type { FlowInput } from '../src/shared/flows/definition.js';
import { validateParams } from '../src/shared/flows/params.js';

const inputs: FlowInput[] = [
  { name: 'change_id', type: 'string', required: true, pattern: 'CHG[0-9]+', max: 10 },
  { name: 'note', type: 'text', min: 2 },
  { name: 'retries', type: 'integer', min: 0, max: 5, default: 2 },
  { name: 'ratio', type: 'number', min: 0, max: 1 },
  { name: 'dry_run', type: 'boolean', default: true },
  { name: 'mode', type: 'select', options: ['check', 'apply'] },
  { name: 'sites', type: 'multiselect', options: ['ams', 'fra', 'lon'] },
  { name: 'extra', type: 'json' },
];

function issues(params: unknown): { path: string; code: string }[] {
  const result = validateParams(inputs, params);
  return result.ok ? [] : result.issues.map((i) => ({ path: i.path, code: i.code }));
}

describe('validateParams', () => {
  it('applies defaults and leaves out optional inputs without a value or default', () => {
    expect(validateParams(inputs, { change_id: 'CHG1' })).toEqual({ ok: true, params: { change_id: 'CHG1', retries: 2, dry_run: true } });
  });

  it('keeps every valid value as sent', () => {
    const params = {
      change_id: 'CHG42',
      note: 'hi',
      retries: 0,
      ratio: 0.5,
      dry_run: false,
      mode: 'apply',
      sites: ['ams', 'lon'],
      extra: { a: [1] },
    };
    expect(validateParams(inputs, params)).toEqual({ ok: true, params });
  });

  it('treats absent params as an empty object and null as absent (but as a value for json inputs)', () => {
    expect(issues(undefined)).toEqual([{ path: 'params.change_id', code: 'required' }]);
    expect(validateParams(inputs, { change_id: 'CHG1', retries: null, extra: null })).toEqual({
      ok: true,
      params: { change_id: 'CHG1', retries: 2, dry_run: true, extra: null },
    });
  });

  it.each([
    ['a non-object', 'x', 'params', 'not_an_object'],
    ['an array', [], 'params', 'not_an_object'],
    ['an unknown name', { change_id: 'CHG1', other: 1 }, 'params.other', 'unknown_param'],
    ['a missing required input', {}, 'params.change_id', 'required'],
    ['an empty required string', { change_id: '' }, 'params.change_id', 'required'],
    ['a number for a string', { change_id: 5 }, 'params.change_id', 'wrong_type'],
    ['a pattern mismatch', { change_id: 'INC1' }, 'params.change_id', 'pattern_mismatch'],
    ['a partial pattern match', { change_id: 'xCHG1' }, 'params.change_id', 'pattern_mismatch'],
    ['a string too long', { change_id: 'CHG12345678' }, 'params.change_id', 'out_of_bounds'],
    ['a text too short', { change_id: 'CHG1', note: 'x' }, 'params.note', 'out_of_bounds'],
    ['a numeric string for an integer', { change_id: 'CHG1', retries: '3' }, 'params.retries', 'wrong_type'],
    ['a fraction for an integer', { change_id: 'CHG1', retries: 1.5 }, 'params.retries', 'wrong_type'],
    ['an integer above max', { change_id: 'CHG1', retries: 6 }, 'params.retries', 'out_of_bounds'],
    ['an integer below min', { change_id: 'CHG1', retries: -1 }, 'params.retries', 'out_of_bounds'],
    ['a number above max', { change_id: 'CHG1', ratio: 1.01 }, 'params.ratio', 'out_of_bounds'],
    ['a string for a boolean', { change_id: 'CHG1', dry_run: 'true' }, 'params.dry_run', 'wrong_type'],
    ['a value not among the options', { change_id: 'CHG1', mode: 'destroy' }, 'params.mode', 'not_in_options'],
    ['a multiselect that is not an array', { change_id: 'CHG1', sites: 'ams' }, 'params.sites', 'wrong_type'],
    ['a multiselect value not among the options', { change_id: 'CHG1', sites: ['ams', 'nyc'] }, 'params.sites', 'not_in_options'],
    ['a multiselect naming an option twice', { change_id: 'CHG1', sites: ['ams', 'ams'] }, 'params.sites', 'not_in_options'],
  ])('refuses %s', (_, params, path, code) => {
    expect(issues(params)).toEqual([{ path, code }]);
  });

  it('reports every issue at once', () => {
    expect(issues({ retries: 9, mode: 'x', bogus: true })).toEqual([
      { path: 'params.bogus', code: 'unknown_param' },
      { path: 'params.change_id', code: 'required' },
      { path: 'params.retries', code: 'out_of_bounds' },
      { path: 'params.mode', code: 'not_in_options' },
    ]);
  });

  it('counts string length in characters, not UTF-16 units', () => {
    const only: FlowInput[] = [{ name: 's', type: 'string', max: 2 }];
    expect(validateParams(only, { s: '🙂🙂' }).ok).toBe(true);
    expect(validateParams(only, { s: '🙂🙂🙂' }).ok).toBe(false);
  });

  it('refuses values against a flow pattern that is not a valid regular expression, rather than throwing', () => {
    const only: FlowInput[] = [{ name: 's', type: 'string', pattern: '(' }];
    expect(validateParams(only, { s: 'x' })).toMatchObject({ ok: false, issues: [{ path: 'params.s', code: 'pattern_mismatch' }] });
  });
});
