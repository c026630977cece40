import { describe, expect, it } from 'vitest';
import type { AuditRow } from '../src/daemon/audit/audit-repo.js';
import type { NewRun } from '../src/daemon/domains/runs/admission-repo.js';
import {
  admissionCompanion,
  type CompanionColumns,
  type CompanionDefinition,
  type CompanionShape,
} from '../src/daemon/domains/runs/admission-companion.js';
import { AdmissionStatements, admissionInput, type PendingInsert } from '../src/daemon/domains/runs/admission-statement.js';

/** Run admission's one statement: its text made once per companion shape, its input rows checked against the shape. */
const shape = <const C extends CompanionColumns>(
  columns: C,
  more: Omit<CompanionDefinition<C>, 'name' | 'columns'> = {},
): CompanionShape<C> => admissionCompanion({ name: 'test', columns, ...more });

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

describe('AdmissionStatements', () => {
  it('makes one text per shape, for any number of admissions, with one placeholder', () => {
    const statements = new AdmissionStatements();
    const extra = shape({ note: 'text' });
    expect(statements.for(extra)).toBe(statements.for(extra));
    expect(statements.for(undefined).prepared.name).toBe('svc_admission');
    expect(statements.for(extra).prepared.name).toBe('svc_admission_test');
    expect(statements.for(extra).prepared.text.match(/\?/g)).toHaveLength(1);
  });

  it("refuses a companion column named like admission's own, of a type it cannot carry, or a gate keyed on no column of its own", () => {
    const statements = new AdmissionStatements();
    const gate = { into: 'notes', columns: ['note'], onConflictDoNothing: { columns: ['note'] } } as const;
    expect(() => statements.for(shape({ run_id: 'uuid' }))).toThrow(TypeError);
    expect(() => statements.for(shape({ created_at: 'timestamptz' }))).toThrow(TypeError);
    expect(() => statements.for(shape({ tags: 'text[]' } as unknown as CompanionColumns))).toThrow(TypeError);
    expect(() => statements.for(shape({ 'Bad-Name': 'text' }))).toThrow(TypeError);
    expect(() => statements.for(shape({ note: 'text' }, { gate: { ...gate, key: 'run_id' as 'note' } }))).toThrow(TypeError);
    expect(() => statements.for(shape({ note: 'text' }, { gate: { ...gate, columns: ['other' as 'note'], key: 'note' } }))).toThrow(
      TypeError,
    );
  });

  it("writes the gate, the companion's audit entry and its statements over the written rows from data and handles", () => {
    const notes = shape(
      { id: 'uuid', note: 'text', touch: 'boolean' },
      {
        gate: { into: 'notes', columns: ['id', 'note'], key: 'id', onConflictDoNothing: { columns: ['note'], where: 'note IS NOT NULL' } },
        auditEntry: true,
        afterWritten: [(written) => `UPDATE things SET seen = true WHERE id IN (SELECT ${written.column('run_id')} FROM ${written.name})`],
      },
    );
    const text = new AdmissionStatements().for(notes).prepared.text.replace(/\s+/g, ' ');
    expect(text).toContain(
      'gate AS (INSERT INTO notes (id, note) SELECT id, note FROM admitted ON CONFLICT (note) WHERE note IS NOT NULL DO NOTHING RETURNING id AS key)',
    );
    expect(text).toContain('JOIN gate ON gate.key = admitted.id');
    expect(text).toMatch(/companion_entry AS \(INSERT INTO audit_logs \(.*\) SELECT companion_entry_org_id, .* FROM written\)/);
    expect(text).toContain('after_0 AS (UPDATE things SET seen = true WHERE id IN (SELECT written.run_id FROM written))');
  });
});

describe('admissionInput', () => {
  it('writes each admission as an array of column values, UUID arrays as PostgreSQL array text', () => {
    const extra = shape({ ids: 'uuid[]', flag: 'boolean' });
    const statement = new AdmissionStatements().for(extra);
    const rows = JSON.parse(admissionInput(statement, [pending(extra.with({ ids: ['a', 'b'], flag: true }))])) as unknown[][];
    expect(rows).toHaveLength(1);
    expect(rows[0]![0]).toBe(0);
    expect(rows[0]![1]).toBe('{00000000-0000-4000-8000-000000000004}');
    expect(rows[0]!.slice(-2)).toEqual(['{a,b}', true]);
  });

  it('refuses a companion whose values do not match its columns', () => {
    const extra = shape({ note: 'text', flag: 'boolean' });
    expect(() => admissionInput(new AdmissionStatements().for(extra), [pending({ shape: extra, values: ['only one'] })])).toThrow(
      TypeError,
    );
  });

  it("appends the companion's audit entry after its own values, and refuses a companion that lacks it", () => {
    const noted = shape({ note: 'text' }, { auditEntry: true });
    const rows = JSON.parse(
      admissionInput(new AdmissionStatements().for(noted), [pending(noted.with({ note: 'n' }, entry))]),
    ) as unknown[][];
    expect(rows[0]!.slice(-12, -10)).toEqual(['n', entry.org_id]);
    expect(() => noted.with({ note: 'n' })).toThrow(TypeError);
  });
});
