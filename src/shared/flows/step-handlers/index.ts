import { CONTAINER_HANDLERS } from './container.js';
import { EVIDENCE_HANDLERS } from './evidence.js';
import { FLOW_HANDLERS } from './flow.js';
import { GENERAL_HANDLERS } from './general.js';
import { IAC_HANDLERS } from './iac.js';
import { MONITOR_HANDLERS } from './monitor.js';
import { narrowedUses, type NarrowedUse } from './narrowing.js';
import { NETCLI_HANDLERS } from './netcli.js';
import { NETOS_UPGRADE_HANDLERS } from './netos-upgrade.js';
import { PLAYBOOK_HANDLERS } from './playbook.js';
import { PROBE_HANDLERS } from './probe.js';
import { SHELL_HANDLERS } from './shell.js';
import type { StepHandler } from './types.js';

export type * from './types.js';
export { FIELD_TYPES, HANDLER_KINDS, STRING_FORMATS } from './types.js';
export { RESERVED_KEY_PREFIX, CONTAINER_STEP_FIELDS } from './common.js';
export { LEGACY_TRANSFER_METHODS } from './netos-upgrade.js';
export { stripReservedKeys, keyValueMap, isReservedKey } from './key-value.js';
export { CROSS_FIELD_RULES, rulesOf, type CrossFieldRule } from './rules.js';
export type { NarrowedUse } from './narrowing.js';

/** The catalogued handler set of the spec ("Step handler configuration schemas"), palette and internal. */
export const STEP_HANDLERS: readonly StepHandler[] = [
  ...PLAYBOOK_HANDLERS,
  ...NETOS_UPGRADE_HANDLERS,
  ...CONTAINER_HANDLERS,
  ...EVIDENCE_HANDLERS,
  ...FLOW_HANDLERS,
  ...GENERAL_HANDLERS,
  ...MONITOR_HANDLERS,
  ...NETCLI_HANDLERS,
  ...PROBE_HANDLERS,
  ...SHELL_HANDLERS,
  ...IAC_HANDLERS,
];

const BY_ID: ReadonlyMap<string, StepHandler> = new Map(STEP_HANDLERS.map((handler) => [handler.id, handler]));

export function findHandler(id: string): StepHandler | undefined {
  return BY_ID.get(id);
}

/** What the flow editor offers: every handler but the internal ones. */
export function paletteHandlers(): readonly StepHandler[] {
  return STEP_HANDLERS.filter((handler) => !handler.internal);
}

/**
 * The narrowed options a step sets (non-default values of fields marked `host_access` or `egress`).
 * Unknown handlers and non-object configurations set none (the validator refuses them anyway).
 */
export function narrowedFields(step: { readonly handler: string; readonly config: unknown }): NarrowedUse[] {
  return narrowedUses(findHandler(step.handler), step.config);
}
