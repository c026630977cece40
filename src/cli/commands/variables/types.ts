import type { Variable, VariableList } from '../../../shared/api/variables.js';
import type { Column } from '../../runtime/table.js';

/** The variable routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { Variable, VariableList };

/** A value as one line: strings as they are, the rest as JSON. */
export const valueText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export const VARIABLE_COLUMNS: Column<Variable>[] = [
  { header: 'ID', value: (v) => v.id },
  { header: 'NAME', value: (v) => v.name },
  { header: 'TYPE', value: (v) => v.type },
  { header: 'VALUE', value: (v) => valueText(v.value) },
  { header: 'SHARED', value: (v) => (v.shared ? 'yes' : 'no') },
  { header: 'UPDATED', value: (v) => v.updated_at },
];

/** One variable as `field: value` lines. */
export const variableFields = (v: Variable) =>
  [
    ['id', v.id],
    ['name', v.name],
    ['type', v.type],
    ['value', valueText(v.value)],
    ['description', v.description],
    ['shared', v.shared ? 'yes (read-only here)' : 'no'],
    ['created_at', v.created_at],
    ['updated_at', v.updated_at],
    ['updated_by', v.updated_by],
  ] as const;
