import { auditInput, type AuditRow } from '../../audit/audit-repo.js';
import { PreparedStatement } from '../../db/prepared.js';
import { uuidArrayText } from '../../db/uuid-array.js';
import {
  ADMISSION_COLUMNS,
  COMPANION_COLUMN_TYPES,
  COMPANION_ENTRY,
  type AdmissionCompanion,
  type AdmissionRows,
  type CompanionColumns,
  type CompanionShape,
  type GateInsert,
} from './admission-companion.js';
import type { NewRun, TargetDevices } from './admission-rows.js';

/** One admission as the statement takes it. */
export interface PendingInsert {
  readonly run: NewRun;
  readonly devices: TargetDevices;
  readonly entry: AuditRow;
  readonly companion: AdmissionCompanion | undefined;
}

/** A statement made for one companion shape (or none), and how many values that shape's companion carries. */
export interface AdmissionStatement {
  readonly prepared: PreparedStatement;
  readonly companionWidth: number;
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
/** Names a companion's column may not take: admission's own, its audit entry's, and what `written` adds. */
const RESERVED: ReadonlySet<string> = new Set([
  ...OWN_COLUMNS.map(([name]) => name),
  ...COMPANION_ENTRY.columns.map(([name]) => name),
  'created_at',
]);
const COLUMN_TYPES: ReadonlySet<string> = new Set(COMPANION_COLUMN_TYPES);
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
/** The statement's rows a companion reads: the input rows whose checks hold, and those whose run was written. */
const ADMITTED = 'admitted';
const WRITTEN = 'written';

/** Every target device live in the row's organization or the shared one (none named: admitted). */
const LIVE_DEVICES = `(SELECT count(*) FROM devices d
      WHERE d.id = ANY(admitted_input.device_ids) AND d.deleted_at IS NULL
        AND (d.org_id = admitted_input.device_org_id OR d.org_id = (SELECT o.id FROM organizations o WHERE o.is_shared AND o.is_active))
    ) = cardinality(admitted_input.device_ids)`;

/** The run as written: the input columns that have a `runs` column, then what every new run holds. */
const RUN_WRITES: readonly (readonly [runsColumn: string, value: string])[] = [
  ...RUN_INPUT.flatMap(([name, , , runsColumn]) => (runsColumn ? [[runsColumn, `${ADMITTED}.${name}`] as const] : [])),
  ['status', "'queued'"],
  ['updated_by', `${ADMITTED}.created_by`],
];
const RUN_COLUMNS = RUN_WRITES.map(([column]) => column).join(', ');
const RUN_VALUES = RUN_WRITES.map(([, value]) => value).join(', ');

/** Column `index` of an input row (a JSON array) as SQL of its type; a JSON null is SQL NULL. */
function inputColumn(index: number, name: string, type: string): string {
  if (type === 'jsonb') return `NULLIF(r->${index}, 'null'::jsonb) AS ${name}`;
  if (type === 'text') return `r->>${index} AS ${name}`;
  return `(r->>${index})::${type} AS ${name}`;
}

/** A handle to the statement's rows `name` for a companion's SQL. */
function rows<C extends CompanionColumns>(name: string): AdmissionRows<C> {
  return { name, column: (column) => `${name}.${column}` };
}

/** The gate's insert: its rows from `admitted`, nothing for a conflicting one, each written row's key returned. */
function gateInsert(gate: GateInsert<CompanionColumns>): string {
  const columns = gate.columns.join(', ');
  const conflict = gate.onConflictDoNothing;
  return `INSERT INTO ${gate.into} (${columns})
      SELECT ${columns} FROM ${ADMITTED}
      ON CONFLICT (${conflict.columns.join(', ')})${conflict.where ? ` WHERE ${conflict.where}` : ''} DO NOTHING
      RETURNING ${gate.key} AS key`;
}

/** Refuses a companion the statement cannot carry: a programmer's mistake, found when its statement is first made. */
function check(shape: CompanionShape): void {
  const refuse = (what: string) => new TypeError(`admission companion ${shape.name}: ${what}`);
  if (!IDENTIFIER.test(shape.name)) throw refuse('its name is not an identifier');
  for (const [name, type] of shape.columns) {
    if (RESERVED.has(name) || !IDENTIFIER.test(name) || !COLUMN_TYPES.has(type)) throw refuse(`column ${name} ${type} is not available`);
  }
  const gate = shape.definition.gate;
  if (!gate) return;
  const own = new Set<string>([...shape.columns.map(([name]) => name), ...ADMISSION_COLUMNS]);
  for (const name of gate.columns) if (!own.has(name)) throw refuse(`the gate writes ${name}, which is neither its column nor admission's`);
  if (!gate.columns.includes(gate.key)) throw refuse(`the gate's key ${gate.key} is not a column it writes`);
  for (const name of [gate.into, ...gate.onConflictDoNothing.columns])
    if (!IDENTIFIER.test(name)) throw refuse(`${name} is not an identifier`);
}

/**
 * The statement's text: the admissions arrive as one JSON array of rows (each an array of column values,
 * keys would be most of the bytes) bound to its only placeholder and are written set-wise, so one text
 * serves any number of them and its plan is made once per connection. Each run with its `run.started`
 * entry is written only when every target device is live (an unknown device costs no round trip of its
 * own) and, with a gate, only for the rows the gate returned.
 */
function compile(shape: CompanionShape | undefined): AdmissionStatement {
  if (shape) check(shape);
  const definition = shape?.definition;
  const companionColumns = [...(shape?.columns ?? []), ...(definition?.auditEntry ? COMPANION_ENTRY.columns : [])];
  const columns = [...OWN_COLUMNS, ...companionColumns];
  const gate = definition?.gate;
  const ctes = [
    `input AS (SELECT ${columns.map(([name, type], i) => inputColumn(i, name, type)).join(', ')} FROM jsonb_array_elements(?::jsonb) AS r)`,
    `${ADMITTED} AS (SELECT * FROM input admitted_input WHERE ${LIVE_DEVICES})`,
    ...(gate ? [`gate AS (${gateInsert(gate)})`] : []),
    `run AS (
    INSERT INTO runs (${RUN_COLUMNS})
      SELECT ${RUN_VALUES} FROM ${ADMITTED}${gate ? ` JOIN gate ON gate.key = ${ADMITTED}.${gate.key}` : ''}
      RETURNING id, created_at
  )`,
    `${WRITTEN} AS (SELECT input.*, run.created_at FROM input JOIN run ON run.id = input.run_id)`,
    `entry AS (${RUN_STARTED.insertFrom(WRITTEN)})`,
    ...(definition?.auditEntry ? [`companion_entry AS (${COMPANION_ENTRY.insertFrom(WRITTEN)})`] : []),
    ...(definition?.afterWritten ?? []).map((sql, i) => `after_${i} AS (${sql(rows(WRITTEN))})`),
  ];
  const text = `WITH ${ctes.join(',\n  ')}\nSELECT item, created_at FROM ${WRITTEN}`;
  return {
    prepared: new PreparedStatement(shape ? `svc_admission_${shape.name}` : 'svc_admission', () => text),
    companionWidth: shape?.width ?? 0,
  };
}

/**
 * Run admission's statements, one per companion shape (and one without), each made when first asked for
 * and kept by its owner (the admission repository), so its prepared statement's text is made once.
 */
export class AdmissionStatements {
  readonly #plain = compile(undefined);
  readonly #byShape = new WeakMap<CompanionShape, AdmissionStatement>();

  for(shape: CompanionShape | undefined): AdmissionStatement {
    if (!shape) return this.#plain;
    let statement = this.#byShape.get(shape);
    if (!statement) this.#byShape.set(shape, (statement = compile(shape)));
    return statement;
  }
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
      if (companion.values.length !== statement.companionWidth)
        throw new TypeError(
          `admission companion ${companion.shape.name}: ${companion.values.length} values for ${statement.companionWidth} columns`,
        );
      for (const value of companion.values) row.push(value);
    }
    rows.push(row);
  }
  return JSON.stringify(rows);
}
