import type { HandlerField } from './types.js';

/** Keys of environment and variable maps starting with this are reserved for the platform and ignored. */
export const RESERVED_KEY_PREFIX = 'SERVICE_';

/** Numbers of devices, attempts, seconds… where the meaning column gives no bound but less makes no sense. */
export const AT_LEAST_ONE = { min: 1 } as const;
export const NOT_NEGATIVE = { min: 0 } as const;
export const TCP_PORT = { min: 1, max: 65535 } as const;

/** The same field with another default or meaning (container.run reuses C fields with its own values). */
export function variantOf(field: HandlerField, change: Partial<HandlerField>): HandlerField {
  return { ...field, ...change };
}

export const EGRESS_MODE: HandlerField = {
  key: 'egress_mode',
  type: 'string',
  default: '',
  enum: ['', 'open', 'allow-listed', 'deny-all'],
  narrowing: 'egress',
  meaning:
    "`open` (everything except Deny rules), `allow-listed` (only Allow rules minus Deny), `deny-all`; empty inherits the flow's network policy",
};

export const EGRESS_ALLOW: HandlerField = {
  key: 'egress_allow',
  type: 'string[]',
  format: 'egress_rule',
  narrowing: 'egress',
  meaning: 'rules for allow-listed mode: `CIDR[:port[-port]][/tcp|udp]` or `service:port`',
};

export const EGRESS_DENY: HandlerField = {
  key: 'egress_deny',
  type: 'string[]',
  format: 'egress_rule',
  narrowing: 'egress',
  meaning: 'same format; Deny always wins',
};

export const CACHE_IMAGE: HandlerField = {
  key: 'cache_image',
  type: 'boolean',
  default: true,
  meaning:
    'keep a copy of the pulled image in the platform registry under the organization; the tag is still checked by digest; the copy serves when the origin is unreachable; no effect without a platform registry',
};

/** The common container-step fields (C) of `playbook.run`, `iac.plan` and `iac.apply`. */
export const CONTAINER_STEP_FIELDS: readonly HandlerField[] = [
  {
    key: 'timeout_seconds',
    type: 'integer',
    default: 600,
    ...AT_LEAST_ONE,
    meaning: 'maximum run time of the container including image pull',
  },
  { key: 'memory', type: 'string', default: '', format: 'memory_size', meaning: 'limit such as 512m or 2g; empty means 1g' },
  { key: 'cpus', type: 'string', default: '', format: 'cpu_count', meaning: 'limit such as 0.5 or 2.0; empty means 1.0' },
  {
    key: 'env',
    type: 'object',
    keyValue: 'string',
    meaning: 'KEY=VALUE, one per line; environment variables are visible in container metadata, so secrets belong in the secret fields',
  },
  EGRESS_MODE,
  EGRESS_ALLOW,
  EGRESS_DENY,
  {
    key: 'mounted_files',
    type: 'object|null',
    default: null,
    meaning: 'flow attachments copied under `/attachments`; default all; a selector ending in `/` includes that folder recursively',
  },
];

export const MAX_PARALLEL_DEVICES: HandlerField = {
  key: 'max_parallel_devices',
  type: 'integer',
  default: 1,
  ...AT_LEAST_ONE,
  meaning: '1 = sequential',
};
