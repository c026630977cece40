import { auditInput, type AuditRow } from '../../audit/audit-repo.js';
import { uuidArrayText } from '../../db/uuid-array.js';

/**
 * What a trigger path adds to run admission's one statement, so its rows commit with the run and need no
 * transaction (the webhook's accepted delivery and its `webhook.triggered` entry). The trigger path says
 * what to write as data; run admission writes the SQL (admission-statement.ts), so no other domain writes
 * SQL against the statement's names. The statement reads its admissions as input rows holding admission's
 * own columns and the companion's; the companion's SQL, where it has some, reads them through handles.
 */

/** The SQL types a companion's column may have; an array travels as PostgreSQL's array text, which needs no quoting only for UUIDs. */
export const COMPANION_COLUMN_TYPES = ['text', 'integer', 'bigint', 'boolean', 'uuid', 'uuid[]', 'jsonb', 'timestamptz'] as const;
export type CompanionColumnType = (typeof COMPANION_COLUMN_TYPES)[number];

/** A companion's columns of an input row, by name, in the order written. */
export type CompanionColumns = Readonly<Record<string, CompanionColumnType>>;

type ValueOf<T extends CompanionColumnType> = T extends 'boolean'
  ? boolean | null
  : T extends 'integer' | 'bigint'
    ? number | null
    : T extends 'uuid[]'
      ? readonly string[] | null
      : T extends 'jsonb'
        ? unknown
        : string | null;

/** One admission's values of a companion's columns. */
export type CompanionValues<C extends CompanionColumns> = { readonly [K in keyof C]: ValueOf<C[K]> };

/** Admission's own columns a companion's SQL may read beside its own: the run about to be (or just) written. */
export const ADMISSION_COLUMNS = ['run_id', 'org_id', 'flow_id', 'flow_version', 'workflow_id'] as const;
export type AdmissionColumn = (typeof ADMISSION_COLUMNS)[number];

/** A handle to rows of admission's statement (a common table expression), and to their columns. */
export interface AdmissionRows<C extends CompanionColumns> {
  /** The rows' name in the statement. */
  readonly name: string;
  /** A column of these rows, qualified: one of the companion's, or one of admission's own. */
  column(name: (keyof C & string) | AdmissionColumn): string;
}

/**
 * The gate: for each admission whose checks in the statement hold, one row inserted into table `into`,
 * its `columns` taken from the companion's columns of the same names. A row that would conflict on the
 * unique index `onConflictDoNothing` names is not written, and then neither is that admission's run: the
 * insert waits for a competing statement holding the same key, so exactly one of two concurrent
 * duplicates writes its run; the other's admission throws `AdmissionGateClosed`.
 */
export interface GateInsert<C extends CompanionColumns> {
  readonly into: string;
  /** The companion's columns, and admission's own (`run_id`: the gate row names the run it lets through). */
  readonly columns: readonly ((keyof C & string) | AdmissionColumn)[];
  /** One of `columns`, unique per admission (`run_id` always is): the run is joined to its gate row on it. */
  readonly key: (keyof C & string) | AdmissionColumn;
  /** The unique index's columns and, for a partial index, its predicate (over `into`'s own columns). */
  readonly onConflictDoNothing: { readonly columns: readonly string[]; readonly where?: string };
}

export interface CompanionDefinition<C extends CompanionColumns> {
  /** Names the prepared statement: one name, one shape. */
  readonly name: string;
  readonly columns: C;
  readonly gate?: GateInsert<C>;
  /** The companion writes an audit entry of its own, committed with the run's `run.started` (`AdmissionCompanion.entry`). */
  readonly auditEntry?: boolean;
  /** Data-modifying statements over the rows whose run was written, reading them through their handle. */
  readonly afterWritten?: readonly ((written: AdmissionRows<C>) => string)[];
}

/** A companion's audit entry as columns of the statement's input rows. */
export const COMPANION_ENTRY = auditInput('companion_entry_');

/** A companion of one admission: its shape, and its values in the order the statement reads them. */
export interface AdmissionCompanion {
  readonly shape: CompanionShape;
  readonly values: readonly unknown[];
}

/** A companion definition, checked when admission first makes its statement (`AdmissionStatements`). */
export class CompanionShape<C extends CompanionColumns = CompanionColumns> {
  /** Kept without its column names' types: the statement reads every shape alike; only `with` is typed by them. */
  readonly definition: CompanionDefinition<CompanionColumns>;
  /** The columns in value order, with their SQL types. */
  readonly columns: readonly (readonly [name: string, type: CompanionColumnType])[];

  constructor(definition: CompanionDefinition<C>) {
    this.definition = definition as unknown as CompanionDefinition<CompanionColumns>;
    this.columns = Object.entries(definition.columns);
  }

  get name(): string {
    return this.definition.name;
  }

  /** How many values one admission's companion carries: its columns', then its audit entry's. */
  get width(): number {
    return this.columns.length + (this.definition.auditEntry ? COMPANION_ENTRY.columns.length : 0);
  }

  /** One admission's companion: `values` by column, and the audit entry if the shape writes one. */
  with(values: CompanionValues<C>, entry?: AuditRow): AdmissionCompanion {
    const row: unknown[] = [];
    for (const [name, type] of this.columns) {
      const value = values[name];
      row.push(type === 'uuid[]' ? uuidArrayText(value as readonly string[] | null) : value);
    }
    if (this.definition.auditEntry) {
      if (!entry) throw new TypeError(`admission companion ${this.name}: its audit entry is missing`);
      COMPANION_ENTRY.push(row, entry);
    }
    return { shape: this, values: row };
  }
}

/** The shape of a companion, for a trigger path to give its admissions (`CompanionShape.with`). */
export function admissionCompanion<const C extends CompanionColumns>(definition: CompanionDefinition<C>): CompanionShape<C> {
  return new CompanionShape(definition);
}
