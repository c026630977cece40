import type { StepHandler } from './types.js';

export const GENERAL_HANDLERS: readonly StepHandler[] = [
  {
    id: 'general.sleep',
    category: 'Actions',
    kinds: ['ACTION', 'WAIT'],
    description: 'Waits a number of seconds.',
    internal: false,
    fields: [
      { key: 'seconds', type: 'integer', default: 30, min: 1, meaning: 'minimum 1' },
      { key: 'message', type: 'string', default: '', meaning: 'recorded as summary and in the sleep evidence; empty generates a text' },
    ],
  },
  {
    id: 'general.noop',
    category: 'Internal',
    kinds: ['ACTION'],
    description: 'Does nothing.',
    internal: true,
    openConfig: true,
    fields: [],
  },
];
