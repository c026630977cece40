/** The shape of a step handler as catalogued data: what the validator checks, the editor shows and the docs route serves. */

export const FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'enum', 'string[]', 'object', 'object|null'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const HANDLER_KINDS = ['ACTION', 'CHECK', 'EXECUTE', 'TRANSFER', 'WAIT'] as const;
export type HandlerKind = (typeof HANDLER_KINDS)[number];

/**
 * Options only a platform admin may set on a step: `host_access` reaches past the sandbox's isolation,
 * `egress` can widen the flow's network policy.
 */
export type Narrowing = 'host_access' | 'egress';

/**
 * Shapes a string value must have when it holds no template (a template is checked after rendering, at
 * run time). Each is stated by the spec's meaning column.
 */
export const STRING_FORMATS = [
  'uuid',
  'http_url',
  'memory_size',
  'cpu_count',
  'absolute_path',
  'egress_rule',
  'mount_spec',
  'pid_mode',
  'duration',
  'status_ranges',
  'socks5_url',
  'md5',
  'secret_ref',
] as const;
export type StringFormat = (typeof STRING_FORMATS)[number];

/** What a non-null value of an `object|null` field may be, where the spec's meaning says. */
export type NullableVariant = 'integer' | 'string' | 'string[]';

/** A per-key object (`field_mappings`, `target_mappings`) whose entries pick a `mode`. */
export interface ModeEntries {
  readonly modes: readonly string[];
  /** A mode that needs another member of the entry, e.g. `parent_role` needs `parent_role_id`. */
  readonly modeRequires?: Readonly<Record<string, string>>;
}

export interface HandlerField {
  readonly key: string;
  readonly type: FieldType;
  /** As the spec gives it; absent where the spec shows "–". */
  readonly default?: unknown;
  /** Where the spec describes the default instead of giving a value (the playbook runner image). */
  readonly defaultText?: string;
  /** For `enum` fields, and `string` fields whose meaning lists every value (`egress_mode`): the allowed values. */
  readonly enum?: readonly string[];
  /** Inclusive bounds for `integer` / `number` fields (and the integer variant of an `object|null` field). */
  readonly min?: number;
  readonly max?: number;
  /** The runtime clamps into [min, max] instead of failing, so the validator does not refuse outside values. */
  readonly clamped?: boolean;
  /** Absent, `""` or an empty list counts as missing. */
  readonly required?: boolean;
  /** For `string` fields (and the items of `string[]` fields): the shape a template-free value must have. */
  readonly format?: StringFormat;
  /** For `string[]` fields: the values an item may take. */
  readonly itemEnum?: readonly string[];
  /**
   * An `object` field the spec describes as KEY=VALUE lines: an object of values or a text of lines.
   * `string`: values are strings; `json`: a value may be any JSON value (`vars` passes lists and objects on).
   */
  readonly keyValue?: 'string' | 'json';
  /** For key-value fields: the key is `GROUP:NAME` (`group_secrets`). */
  readonly groupedKeys?: boolean;
  /** For key-value fields: every value is a secret reference. */
  readonly secretValues?: boolean;
  /** For `object|null` fields: what a non-null value may be; absent accepts any JSON value. */
  readonly variants?: readonly NullableVariant[];
  /** For `object` fields holding one entry per key with a `mode`. */
  readonly entries?: ModeEntries;
  readonly narrowing?: Narrowing;
  readonly meaning: string;
}

export interface StepHandler {
  readonly id: string;
  readonly category: string;
  readonly kinds: readonly HandlerKind[];
  readonly description: string;
  /** Registered (the validator accepts it) but hidden from the palette. */
  readonly internal: boolean;
  /**
   * The spec lists no fields for the internal handlers: their configuration is written by the platform,
   * so any object is accepted rather than inventing a schema.
   */
  readonly openConfig?: boolean;
  readonly fields: readonly HandlerField[];
}
