import type { StepHandler } from './types.js';

export const FLOW_HANDLERS: readonly StepHandler[] = [
  {
    id: 'flow.notify',
    category: 'Notifications',
    kinds: ['ACTION'],
    description: 'Sends a notification to a destination.',
    internal: false,
    fields: [
      { key: 'destination_id', type: 'string', required: true, meaning: 'notification destination' },
      { key: 'title', type: 'string', default: '', meaning: 'template; empty uses the shared default title' },
      { key: 'message', type: 'string', default: '', meaning: 'template; empty uses the shared default body' },
    ],
  },
  {
    id: 'flow.run',
    category: 'Actions',
    kinds: ['ACTION', 'EXECUTE'],
    description: 'Starts a run of another committed flow, optionally waiting for it and exposing its outputs.',
    internal: false,
    fields: [
      {
        key: 'flow_id',
        type: 'string',
        default: '',
        format: 'uuid',
        meaning: 'UUID of the committed child flow; give exactly one of flow_id / flow_name',
      },
      { key: 'flow_name', type: 'string', default: '', meaning: 'resolved to the newest flow at launch' },
      {
        key: 'version',
        type: 'object|null',
        default: null,
        variants: ['integer'],
        min: 1,
        meaning: 'committed version number (from 1); omitted = newest committed at start',
      },
      {
        key: 'wait_for_completion',
        type: 'boolean',
        default: true,
        meaning: 'poll the child run and mirror its result, exposing the child outputs; false succeeds once the child run is created',
      },
      {
        key: 'run_name',
        type: 'object|null',
        default: null,
        variants: ['string'],
        meaning: 'child run name; empty derives one from the parent run name plus a short random suffix',
      },
      {
        key: 'field_mappings',
        type: 'object',
        entries: { modes: ['default', 'literal', 'template'], modeRequires: { literal: 'value', template: 'value' } },
        meaning: 'per child input field id: mode `default`, `literal` or `template`, plus value',
      },
      {
        key: 'target_mappings',
        type: 'object',
        entries: { modes: ['child_default', 'parent_role', 'none'], modeRequires: { parent_role: 'parent_role_id' } },
        meaning: 'per child target role: mode `child_default`, `parent_role` (with parent_role_id) or `none`',
      },
      {
        key: 'poll_interval_seconds',
        type: 'number',
        default: 5,
        min: 1,
        max: 60,
        clamped: true,
        meaning: 'clamped to 1-60; ignored when not waiting',
      },
    ],
  },
  {
    id: 'flow.git_sync',
    category: 'Internal',
    kinds: ['ACTION'],
    description: 'Repository-wide pull sync of flow definitions for scheduled flows.',
    internal: true,
    openConfig: true,
    fields: [],
  },
];
