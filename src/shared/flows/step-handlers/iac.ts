import { CACHE_IMAGE, CONTAINER_STEP_FIELDS, NOT_NEGATIVE, variantOf } from './common.js';
import type { HandlerField, StepHandler } from './types.js';

const STOP_GRACE_SECONDS: HandlerField = {
  key: 'stop_grace_seconds',
  type: 'integer',
  default: 120,
  ...NOT_NEGATIVE,
  meaning:
    'on cancel or timeout the tool gets SIGTERM to finish, save state and release the lock, and is killed after this time; at a timeout the time comes out of the step timeout (at most half); 0 stops at once',
};

const SECRET_ENV: HandlerField = {
  key: 'secret_env',
  type: 'object',
  keyValue: 'string',
  secretValues: true,
  meaning: 'NAME=secret reference exported to the tool process only; redacted',
};

const LOCK_TIMEOUT: HandlerField = { key: 'lock_timeout', type: 'string', default: '300s', format: 'duration', meaning: 'e.g. 300s or 5m' };

const STATE_ENCRYPTION_KEY: HandlerField = {
  key: 'state_encryption_key',
  type: 'string',
  default: '',
  format: 'secret_ref',
  meaning: '`opentofu` only; secret reference of a passphrase of 16+ characters; state and saved plans are encrypted',
};

export const IAC_HANDLERS: readonly StepHandler[] = [
  {
    id: 'iac.plan',
    category: 'Actions',
    kinds: ['ACTION', 'CHECK', 'EXECUTE'],
    description: 'Plans an infrastructure-as-code configuration from flow attachments; `iac.apply` applies the saved plan.',
    internal: false,
    fields: [
      ...CONTAINER_STEP_FIELDS,
      STOP_GRACE_SECONDS,
      SECRET_ENV,
      { key: 'engine', type: 'enum', default: 'opentofu', enum: ['opentofu', 'terraform'], meaning: 'the apply step uses the same engine' },
      { key: 'source_dir', type: 'string', default: '', meaning: 'attachment folder holding the configuration; empty = attachments root' },
      {
        key: 'state',
        type: 'enum',
        default: 'managed',
        enum: ['managed', 'backend', 'ephemeral'],
        meaning:
          "`managed`: the service stores the state (encrypted, locked, versioned) under state_name, replacing any backend block; `backend`: the configuration's own backend block, required; `ephemeral`: local state for this run only",
      },
      {
        key: 'state_name',
        type: 'string',
        default: '',
        meaning: 'managed state name in the organization; shared by everything using the name, including its lock',
      },
      {
        key: 'hold_until_apply',
        type: 'boolean',
        default: false,
        meaning:
          'keep the managed state held from the plan until the run applies or ends; other runs and people cannot lock or change it meanwhile',
      },
      {
        key: 'backend_config',
        type: 'object',
        keyValue: 'string',
        meaning: 'KEY=value lines for a partial backend block; only for `backend` state; passed from a file',
      },
      { key: 'vars', type: 'object', keyValue: 'json', meaning: 'NAME=value lines; a JSON list or object value is passed as that type' },
      {
        key: 'secret_vars',
        type: 'object',
        keyValue: 'string',
        secretValues: true,
        meaning: 'NAME=secret reference; always strings; stored in the saved plan',
      },
      { key: 'var_files', type: 'string[]', meaning: 'attachment paths of variable files' },
      { key: 'destroy', type: 'boolean', default: false, meaning: 'plan a destroy' },
      { key: 'refresh_only', type: 'boolean', default: false, meaning: 'only reconcile state' },
      { key: 'targets', type: 'string[]', meaning: 'resource addresses limiting the plan' },
      { key: 'replace', type: 'string[]', meaning: 'addresses to force-replace' },
      LOCK_TIMEOUT,
      STATE_ENCRYPTION_KEY,
      {
        key: 'image',
        type: 'string',
        default: '',
        meaning: "tool image run as root with POSIX sh; empty selects the engine's default image",
      },
      variantOf(CACHE_IMAGE, { meaning: 'as in playbook.run' }),
    ],
  },
  {
    id: 'iac.apply',
    category: 'Actions',
    kinds: ['ACTION', 'EXECUTE'],
    description: 'Applies exactly the plan a `iac.plan` step saved earlier in the run.',
    internal: false,
    fields: [
      ...CONTAINER_STEP_FIELDS,
      STOP_GRACE_SECONDS,
      SECRET_ENV,
      { key: 'plan_step', type: 'string', required: true, meaning: 'the `iac.plan` step that must have run in this run' },
      variantOf(STATE_ENCRYPTION_KEY, { meaning: '`opentofu` only; the same reference the plan used' }),
      variantOf(LOCK_TIMEOUT, { meaning: 'how long to wait for the state lock' }),
    ],
  },
];
