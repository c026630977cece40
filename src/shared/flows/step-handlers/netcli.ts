import { AT_LEAST_ONE, MAX_PARALLEL_DEVICES, variantOf } from './common.js';
import type { StepHandler } from './types.js';

const PARALLEL = variantOf(MAX_PARALLEL_DEVICES, { meaning: 'devices worked on at once; 1 = sequential' });

export const NETCLI_HANDLERS: readonly StepHandler[] = [
  {
    id: 'netcli.collect_evidence',
    category: 'Checks',
    kinds: ['CHECK'],
    description: 'Runs device CLI commands and stores each output as evidence.',
    internal: false,
    fields: [
      {
        key: 'commands',
        type: 'string[]',
        meaning:
          'device CLI commands, one artifact per command per device; empty collects nothing and still succeeds; `{{ variable }}` allowed',
      },
      PARALLEL,
    ],
  },
  {
    id: 'netcli.execute',
    category: 'Actions',
    kinds: ['ACTION'],
    description: 'Runs device CLI commands.',
    internal: false,
    fields: [{ key: 'commands', type: 'string[]', meaning: 'CLI commands; templates allowed' }, PARALLEL],
  },
  {
    id: 'netcli.poll_until',
    category: 'Checks',
    kinds: ['CHECK', 'WAIT'],
    description: 'Repeats a device CLI command until its output matches.',
    internal: false,
    fields: [
      { key: 'command', type: 'string', default: '', required: true, meaning: 'required, the step fails without it' },
      { key: 'match_regex', type: 'string', default: '', meaning: 'optional' },
      { key: 'match_string', type: 'string', default: '', meaning: 'optional, case-insensitive literal' },
      { key: 'interval_seconds', type: 'integer', default: 5, ...AT_LEAST_ONE, meaning: 'minimum 1; no wait after the final attempt' },
      {
        key: 'max_attempts',
        type: 'integer',
        default: 12,
        ...AT_LEAST_ONE,
        meaning: 'minimum 1; polling stops at the first satisfying attempt',
      },
      { key: 'invert_match', type: 'boolean', default: false, meaning: 'succeed when the pattern does not match' },
      PARALLEL,
    ],
  },
];
