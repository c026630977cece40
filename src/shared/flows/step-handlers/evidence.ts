import { NOT_NEGATIVE } from './common.js';
import type { StepHandler } from './types.js';

export const EVIDENCE_HANDLERS: readonly StepHandler[] = [
  {
    id: 'evidence.assert',
    category: 'Checks',
    kinds: ['CHECK'],
    description: 'Asserts on evidence a `netcli.collect_evidence` step collected, per device and command.',
    internal: false,
    fields: [
      { key: 'artifact_step_id', type: 'string', required: true, meaning: 'a `netcli.collect_evidence` step' },
      {
        key: 'operator',
        type: 'enum',
        default: 'contains',
        enum: ['contains', 'not_contains', 'matches', 'not_matches', 'eq', 'ne', 'gt', 'lt', 'ge', 'le'],
        meaning:
          'regex operators treat expected as a regular expression; ordering operators compare numerically when both sides parse as numbers, else as text',
      },
      {
        key: 'match_scope',
        type: 'enum',
        default: 'output',
        enum: ['output', 'lines'],
        meaning: 'whole artifact once, or each selected line',
      },
      {
        key: 'line_filter',
        type: 'string',
        default: '',
        meaning: 'with `lines`: regex selecting lines; empty selects every non-empty line',
      },
      {
        key: 'min_lines',
        type: 'integer',
        default: 1,
        ...NOT_NEGATIVE,
        meaning: 'with `lines`: fail unless at least this many lines selected',
      },
      { key: 'target_role', type: 'string', default: '', meaning: 'evidence output target' },
      {
        key: 'command',
        type: 'string',
        default: '',
        meaning:
          'command whose collected output is asserted; each device bound to the target is checked against the artifact stored for it and this command',
      },
      { key: 'expected', type: 'string', default: '', meaning: 'literal, regex or number depending on operator' },
      {
        key: 'message',
        type: 'string',
        default: '',
        meaning: 'shown verbatim as summary on pass and as error on fail; empty generates messages',
      },
    ],
  },
  {
    id: 'evidence.compare',
    category: 'Checks',
    kinds: ['CHECK'],
    description: 'Compares pre-change and post-change evidence of two steps.',
    internal: false,
    fields: [
      { key: 'precheck_step_id', type: 'string', default: '', meaning: 'step with pre-change evidence' },
      { key: 'postcheck_step_id', type: 'string', default: '', meaning: 'step with post-change evidence' },
      {
        key: 'comparison_type',
        type: 'enum',
        default: 'exact',
        enum: ['exact', 'changed', 'subset', 'superset', 'json_diff'],
        meaning: '`exact`: a difference fails; `changed`: a difference succeeds; the rest compare structured evidence',
      },
      {
        key: 'artifact_name',
        type: 'string',
        default: '',
        meaning: 'compare one artifact by exact name; blank compares every shared artifact',
      },
      { key: 'artifact_name_pattern', type: 'string', default: '', meaning: 'glob over artifact names; ignored when artifact_name is set' },
      { key: 'ignore_patterns', type: 'string[]', meaning: 'regexes removed from both sides before text comparison, matched per line' },
      { key: 'ignore_fields', type: 'string[]', meaning: 'structured evidence: keys removed from both sides' },
    ],
  },
];
