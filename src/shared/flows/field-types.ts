import type { FlowInputType } from './definition.js';

export interface FieldTypeInfo {
  readonly type: FlowInputType;
  readonly label: string;
  readonly description: string;
  /** The JSON type a run's value has. */
  readonly value: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'any';
  /** Optional members of an input that apply to this type (others are refused by validation). */
  readonly members: readonly ('options' | 'min' | 'max' | 'pattern')[];
}

/** The input types a flow's interface may declare, as a launch form renders them. */
export const FIELD_TYPES: readonly FieldTypeInfo[] = [
  {
    type: 'string',
    label: 'Text (one line)',
    description: 'A single-line string; `min`/`max` bound its length, `pattern` must match the whole value.',
    value: 'string',
    members: ['min', 'max', 'pattern'],
  },
  {
    type: 'text',
    label: 'Text (multi-line)',
    description: 'A multi-line string; `min`/`max` bound its length.',
    value: 'string',
    members: ['min', 'max'],
  },
  { type: 'integer', label: 'Integer', description: 'A whole number within `min`/`max`.', value: 'integer', members: ['min', 'max'] },
  { type: 'number', label: 'Number', description: 'A number within `min`/`max`.', value: 'number', members: ['min', 'max'] },
  { type: 'boolean', label: 'Checkbox', description: 'true or false.', value: 'boolean', members: [] },
  { type: 'select', label: 'Choice', description: 'One of `options`.', value: 'string', members: ['options'] },
  {
    type: 'multiselect',
    label: 'Multiple choice',
    description: 'Any number of `options`, each at most once.',
    value: 'array',
    members: ['options'],
  },
  { type: 'json', label: 'JSON', description: 'Any JSON value, passed on as is.', value: 'any', members: [] },
];
