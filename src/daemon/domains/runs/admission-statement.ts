import { auditInput, type AuditRow } from '../../audit/audit-repo.js';
import { uuidArrayText } from '../../db/uuid-array.js';
import type { AdmissionCompanion, CompanionShape } from './run-admission.js';
import type { NewRun, TargetDevices } from './admission-repo.js';

/** One admission as the statement takes it. */
export interface PendingInsert {
  readonly run: NewRun;
  readonly devices: TargetDevices;
  readonly entry: AuditRow;
  readonly companion: AdmissionCompanion | undefined;
}

/** A statement made for one companion shape (or none): its name, its text, the shape's columns in order. */
export interface AdmissionStatement {
  readonly name: string;
  readonly text: string;
  readonly companionColumns: readonly (readonly [name: string, type: string])[];
}

const RUN_STARTED = auditInput('entry_');

/**
 * An input column: its name, its SQL type, where an admission's value comes from, and the `runs` column
 * it is written to, if any.
 */
type Column = readonly [name: string, type: string, value: (item: PendingInsert, index: number) => unknown, runsColumn?: string];

/** Admission's own columns of an input row. */
const RUN_INPUT: readonly Column[] = [
  ['item', 'integer', (_, index) => index],
  ['device_ids', 'uuid[]', ({ devices }) => uuidArrayText(devices.ids)],
  ['device_org_id', 'uuid', ({ devices }) => devices.orgId],
  ['run_id', 'uuid', ({ run }) => run.id, 'id'],
  ['org_id', 'uuid', ({ run }) => run.org_id, 'org_id'],
  ['flow_id', 'uuid', ({ run }) => run.flow_id, 'flow_id'],
  ['flow_version', 'integer', ({ run }) => run.flow_version, 'flow_version'],
  ['flow_name', 'text', ({ run }) => run.flow_name, 'flow_name'],
  ['run_name', 'text', ({ run }) => run.name, 'name'],
  ['params', 'jsonb', ({ run }) => run.params, 'params_json'],
  ['targets', 'jsonb', ({ run }) => run.targets, 'targets_json'],
  ['trigger_source', 'text', ({ run }) => run.trigger_source, 'trigger_source'],
  ['trigger_details', 'jsonb', ({ run }) => run.trigger_details, 'trigger_details_json'],
  ['workflow_id', 'text', ({ run }) => run.workflow_id, 'workflow_id'],
  ['created_by', 'text', ({ run }) => run.created_by, 'created_by'],
];
const OWN_COLUMNS: readonly (readonly [string, string])[] = [
  ...RUN_INPUT.map(([name, type]) => [name, type] as const),
  ...RUN_STARTED.columns,
];
/** Names a companion's column may not take: admission's own, and what `written` adds. */
const RESERVED = new Set([...OWN_COLUMNS.map(([name]) => name), 'created_at']);
/** Types an input column may have; an array travels as PostgreSQL's array text, which needs no quoting only for UUIDs. */
const COLUMN_TYPES = new Set(['text', 'integer', 'bigint', 'boolean', 'uuid', 'uuid[]', 'jsonb', 'timestamptz']);

/** Every target device live in the row's organization or the shared one (none named: admitted). */
const LIVE_DEVICES = `(SELECT count(*) FROM devices d
      WHERE d.id = ANY(admitted_input.device_ids) AND d.deleted_at IS NULL
        AND (d.org_id = admitted_input.device_org_id OR d.org_id = (SELECT o.id FROM organizations o WHERE o.is_shared AND o.is_active))
    ) = cardinality(admitted_input.device_ids)`;

/** The run as written: the input columns that have a `runs` column, then what every new run holds. */
const RUN_WRITES: readonly (readonly [runsColumn: string, value: string])[] = [
  ...RUN_INPUT.flatMap(([name, , , runsColumn]) => (runsColumn ? [[runsColumn, `admitted.${name}`] as const] : [])),
  ['status', "'queued'"],
  ['updated_by', 'admitted.created_by'],
];
const RUN_COLUMNS = RUN_WRITES.map(([column]) => column).join(', ');
const RUN_VALUES = RUN_WRITES.map(([, value]) => value).join(', ');

/** Column `index` of an input row (a JSON array) as SQL of its type; a JSON null is SQL NULL. */
function inputColumn(index: number, name: string, type: string): string {
  if (type === 'jsonb') return `NULLIF(r->${index}, 'null'::jsonb) AS ${name}`;
  if (type === 'text') return `r->>${index} AS ${name}`;
  return `(r->>${index})::${type} AS ${name}`;
}

/**
 * The statement's text: the admissions arrive as one JSON array of rows (each an array of column values,
 * keys would be most of the bytes) bound to its only placeholder and are written set-wise, so one text
 * serves any number of them and its plan is made once per connection. Each run with its `run.started`
 * entry is written only when every target device is live (an unknown device costs no round trip of its
 * own) and, with a gate, only for the rows the gate returned.
 */
function compile(shape: CompanionShape | undefined): AdmissionStatement {
  const companionColumns = shape?.columns ?? [];
  for (const [name, type] of companionColumns) {
    if (RESERVED.has(name) || !/^[a-z_][a-z0-9_]*$/.test(name) || !COLUMN_TYPES.has(type)) {
      throw new TypeError(`admission companion ${shape!.name}: column ${name} ${type} is not available`);
    }
  }
  const columns = [...OWN_COLUMNS, ...companionColumns];
  const gate = shape?.gate;
  if (gate && !companionColumns.some(([name]) => name === gate.keyColumn))
    throw new TypeError(`admission companion ${shape!.name}: no column ${gate.keyColumn}`);
  const ctes = [
    `input AS (SELECT ${columns.map(([name, type], i) => inputColumn(i, name, type)).join(', ')} FROM jsonb_array_elements(?::jsonb) AS r)`,
    `admitted AS (SELECT * FROM input admitted_input WHERE ${LIVE_DEVICES})`,
    ...(gate ? [`gate AS (${gate.sql})`] : []),
    `run AS (
    INSERT INTO runs (${RUN_COLUMNS})
      SELECT ${RUN_VALUES} FROM admitted${gate ? ` JOIN gate ON gate.key = admitted.${gate.keyColumn}` : ''}
      RETURNING id, created_at
  )`,
    'written AS (SELECT input.*, run.created_at FROM input JOIN run ON run.id = input.run_id)',
    `entry AS (${RUN_STARTED.insertFrom('written')})`,
    ...(shape?.after ?? []).map((sql, i) => `after_${i} AS (${sql})`),
  ];
  return {
    name: shape ? `svc_admission_${shape.name}` : 'svc_admission',
    text: `WITH ${ctes.join(',\n  ')}\nSELECT item, created_at FROM written`,
    companionColumns,
  };
}

const compiled = new WeakMap<CompanionShape, AdmissionStatement>();
let withoutCompanion: AdmissionStatement | undefined;

/** The prepared statement for admissions of `shape` (none: no companion), made once each. */
export function admissionStatement(shape: CompanionShape | undefined): AdmissionStatement {
  if (!shape) return (withoutCompanion ??= compile(undefined));
  let statement = compiled.get(shape);
  if (!statement) compiled.set(shape, (statement = compile(shape)));
  return statement;
}

/** The statement's one value: its admissions as input rows, `item` numbering them in order. */
export function admissionInput(statement: AdmissionStatement, items: readonly PendingInsert[]): string {
  const rows: unknown[][] = [];
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i]!;
    const row: unknown[] = [];
    for (const [, , value] of RUN_INPUT) row.push(value(item, i));
    RUN_STARTED.push(row, item.entry);
    const companion = item.companion;
    if (companion) {
      const columns = statement.companionColumns;
      if (companion.values.length !== columns.length)
        throw new TypeError(`admission companion ${companion.shape.name}: ${companion.values.length} values for ${columns.length} columns`);
      for (let c = 0; c < columns.length; c += 1) {
        const value = companion.values[c];
        row.push(columns[c]![1] === 'uuid[]' ? uuidArrayText(value as readonly string[] | null | undefined) : value);
      }
    }
    rows.push(row);
  }
  return JSON.stringify(rows);
}
