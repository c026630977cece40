import { describe, expect, it } from 'vitest';
import type { AuditRow } from '../src/daemon/audit/audit-repo.js';
import type { NewRun } from '../src/daemon/domains/runs/admission-repo.js';
import { admissionInput, admissionStatement, type PendingInsert } from '../src/daemon/domains/runs/admission-statement.js';
import type { CompanionShape } from '../src/daemon/domains/runs/run-admission.js';

/** Run admission's one statement: its text made once per companion shape, its input rows checked against the shape. */
const shape = (columns: CompanionShape['columns'], gate?: CompanionShape['gate']): CompanionShape => ({
  name: 'test',
  columns,
  ...(gate ? { gate } : {}),
});

const run: NewRun = {
  id: '00000000-0000-4000-8000-000000000001',
  org_id: '00000000-0000-4000-8000-000000000002',
  flow_id: '00000000-0000-4000-8000-000000000003',
  flow_version: 1,
  flow_name: 'f',
  name: 'f',
  params: { a: 1 },
  targets: {},
  trigger_source: 'manual',
  trigger_details: {},
  workflow_id: 'run-00000000-0000-4000-8000-000000000001',
  created_by: 'sub',
};
const entry: AuditRow = {
  org_id: run.org_id,
  event_type: 'run.started',
  actor_sub: 'sub',
  actor_username: null,
  resource_type: 'run',
  resource_id: run.id,
  action: 'run:trigger',
  outcome: 'success',
  client_ip: null,
  user_agent: null,
  details_json: {},
};
const pending = (companion?: PendingInsert['companion']): PendingInsert => ({
  run,
  devices: { orgId: run.org_id, ids: ['00000000-0000-4000-8000-000000000004'] },
  entry,
  companion,
});

describe('admissionStatement', () => {
  it('makes one text per shape, for any number of admissions, with one placeholder', () => {
    const extra = shape([['note', 'text']]);
    expect(admissionStatement(extra)).toBe(admissionStatement(extra));
    expect(admissionStatement(undefined).name).toBe('svc_admission');
    expect(admissionStatement(extra).name).toBe('svc_admission_test');
    expect(admissionStatement(extra).text.match(/\?/g)).toHaveLength(1);
  });

  it("refuses a companion column named like admission's own, of a type it cannot carry, or a gate keyed on no column of its own", () => {
    expect(() => admissionStatement(shape([['run_id', 'uuid']]))).toThrow(TypeError);
    expect(() => admissionStatement(shape([['created_at', 'timestamptz']]))).toThrow(TypeError);
    expect(() => admissionStatement(shape([['tags', 'text[]']]))).toThrow(TypeError);
    expect(() => admissionStatement(shape([['Bad-Name', 'text']]))).toThrow(TypeError);
    expect(() => admissionStatement(shape([['note', 'text']], { sql: 'SELECT 1 AS key', keyColumn: 'run_id' }))).toThrow(TypeError);
  });
});

describe('admissionInput', () => {
  it('writes each admission as an array of column values, UUID arrays as PostgreSQL array text', () => {
    const extra = shape([
      ['ids', 'uuid[]'],
      ['flag', 'boolean'],
    ]);
    const statement = admissionStatement(extra);
    const rows = JSON.parse(admissionInput(statement, [pending({ shape: extra, values: [['a', 'b'], true] })])) as unknown[][];
    expect(rows).toHaveLength(1);
    expect(rows[0]![0]).toBe(0);
    expect(rows[0]![1]).toBe('{00000000-0000-4000-8000-000000000004}');
    expect(rows[0]!.slice(-2)).toEqual(['{a,b}', true]);
  });

  it('refuses a companion whose values do not match its columns', () => {
    const extra = shape([
      ['note', 'text'],
      ['flag', 'boolean'],
    ]);
    expect(() => admissionInput(admissionStatement(extra), [pending({ shape: extra, values: ['only one'] })])).toThrow(TypeError);
  });
});
