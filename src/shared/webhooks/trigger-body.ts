import type { ProblemCode } from '../api/problem-codes.js';
import { findUnstorableTextInJson, UNSTORABLE_TEXT_MESSAGES } from '../json/unstorable-text.js';
import { providerRefKey } from '../inventory/provider-ref.js';
import { isUuid } from '../ids.js';

/**
 * The trigger body rules (spec "Body rules" 1-7) as pure functions: `decodeTriggerBody` (bytes to JSON),
 * `parseTriggerBody` (shape, caps), then, after the caller's device lookups, `resolveTargets`. A
 * failure is data (status, code, detail, extensions) for the caller to journal and answer.
 */

export const MAX_PROVIDER_REFERENCES = 100;
/** Longest provider_id / external_id: the devices columns are varchar(255), so a longer one names nothing. */
export const MAX_REFERENCE_TEXT = 255;
/** How many unknown references the 400 message lists; the rest are counted (it is journaled). */
export const MAX_LISTED_MISSING = 20;

export interface ProviderRef {
  readonly role: string;
  readonly provider_id: string;
  readonly external_id: string;
}

export interface TriggerBody {
  readonly params: Record<string, unknown>;
  /** Every role the body names, in its order, with the device UUIDs given directly (lower-cased, distinct). */
  readonly targets: Record<string, string[]>;
  /** Distinct (role, provider_id, external_id) triples, in body order. */
  readonly providerRefs: ProviderRef[];
}

export type TriggerBodyCode = Extract<
  ProblemCode,
  'invalid_payload' | 'external_id_not_text' | 'too_many_provider_references' | 'too_many_targets' | 'unknown_device_reference'
>;

export interface TriggerBodyFailure {
  readonly ok: false;
  readonly status: 400 | 422;
  readonly code: TriggerBodyCode;
  /** The problem's `detail`, also the journal's `error_detail`. */
  readonly detail: string;
  /** Extra members of the problem body: `errors` ([{path, message}]), or `limit` and `count`, or `missing`. */
  readonly extensions: Readonly<Record<string, unknown>>;
}

const REFERENCE_SHAPE = 'a device reference is a device UUID or {"provider_id": "...", "external_id": "..."}';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const has = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

function invalid(path: string, message: string, code: TriggerBodyCode = 'invalid_payload'): TriggerBodyFailure {
  return { ok: false, status: 422, code, detail: `${path || '(body)'}: ${message}`, extensions: { errors: [{ path, message }] } };
}

function tooMany(
  code: 'too_many_targets' | 'too_many_provider_references',
  what: string,
  count: number,
  limit: number,
): TriggerBodyFailure {
  return {
    ok: false,
    status: 422,
    code,
    detail: `The body names ${count} ${what}; at most ${limit} are accepted.`,
    extensions: { limit, count },
  };
}

/**
 * Bytes to JSON. JSON is UTF-8 (RFC 8259), so bytes that are not are refused rather than decoded with
 * replacement characters into parameters nobody sent. The spec's trigger errors name 422 for an
 * invalid payload and no 400 for syntax, so broken JSON is `invalid_payload` here too.
 */
export function decodeTriggerBody(raw: Uint8Array): { readonly ok: true; readonly value: unknown } | TriggerBodyFailure {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return invalid('', 'the body is not UTF-8 text');
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return invalid('', 'the body is not valid JSON');
  }
  // Every string of the body is stored (params) or looked up (provider references) as it is sent.
  const unstorable = findUnstorableTextInJson(text, value);
  if (unstorable) return invalid(unstorable.path, UNSTORABLE_TEXT_MESSAGES[unstorable.kind]);
  return { ok: true, value };
}

type Reference = { readonly uuid: string } | { readonly ref: ProviderRef } | TriggerBodyFailure;

function readReference(role: string, entry: unknown, path: string): Reference {
  if (typeof entry === 'string') return isUuid(entry) ? { uuid: entry.toLowerCase() } : invalid(path, REFERENCE_SHAPE);
  if (!isObject(entry)) return invalid(path, REFERENCE_SHAPE);
  const extra = Object.keys(entry).filter((key) => key !== 'provider_id' && key !== 'external_id');
  if (extra.length > 0) return invalid(`${path}.${extra[0]}`, `unknown key; ${REFERENCE_SHAPE}`);
  const { provider_id: providerId, external_id: externalId } = entry;
  if (typeof providerId !== 'string' || providerId === '' || providerId.length > MAX_REFERENCE_TEXT) {
    return invalid(`${path}.provider_id`, `must be a non-empty string of at most ${MAX_REFERENCE_TEXT} characters`);
  }
  // The usual mistake of a template that renders an id unquoted: its own code, so senders can tell.
  if (typeof externalId === 'number')
    return invalid(`${path}.external_id`, 'must be text: quote the id ("17", not 17)', 'external_id_not_text');
  if (typeof externalId !== 'string' || externalId === '' || externalId.length > MAX_REFERENCE_TEXT) {
    return invalid(`${path}.external_id`, `must be a non-empty string of at most ${MAX_REFERENCE_TEXT} characters`);
  }
  return { ref: { role, provider_id: providerId, external_id: externalId } };
}

export interface TriggerBodyLimits {
  /** SERVICE_INVENTORY_MAX_RUN_TARGETS: UUIDs and references together. */
  readonly maxTargets: number;
  readonly maxProviderReferences?: number;
}

/**
 * Rules 1-6. Checked in this order, the first problem answering: the shape of the body, `params` and
 * `related_targets` (each role an array); the total count against `maxTargets` (before any entry is
 * read, so an oversized body costs nothing more); each entry in body order; the provider-reference count.
 */
export function parseTriggerBody(body: unknown, limits: TriggerBodyLimits): ({ readonly ok: true } & TriggerBody) | TriggerBodyFailure {
  if (!isObject(body)) return invalid('', 'the body must be a JSON object');
  if (!has(body, 'params') && !has(body, 'related_targets')) return { ok: true, params: body, targets: {}, providerRefs: [] };

  const params = has(body, 'params') ? body.params : {};
  if (!isObject(params)) return invalid('params', 'must be a JSON object');
  const related = has(body, 'related_targets') ? body.related_targets : {};
  if (!isObject(related)) return invalid('related_targets', 'must be an object mapping each target role to an array of device references');
  const roles = Object.keys(related);
  let total = 0;
  for (const role of roles) {
    const entries = related[role];
    if (!Array.isArray(entries)) return invalid(`related_targets.${role}`, 'must be an array of device references');
    total += entries.length;
  }
  if (total > limits.maxTargets) return tooMany('too_many_targets', 'targets', total, limits.maxTargets);

  // Entries built with defineProperty semantics (Object.fromEntries), so a role named "__proto__" stays a role.
  const targets: [string, string[]][] = [];
  const providerRefs: ProviderRef[] = [];
  const seenRefs = new Set<string>();
  let refCount = 0;
  for (const role of roles) {
    const uuids = new Set<string>();
    const entries = related[role] as unknown[];
    for (let i = 0; i < entries.length; i++) {
      const reference = readReference(role, entries[i], `related_targets.${role}[${i}]`);
      if ('ok' in reference) return reference;
      if ('uuid' in reference) {
        uuids.add(reference.uuid);
        continue;
      }
      refCount++;
      const key = `${role}\u0000${providerRefKey(reference.ref)}`;
      if (!seenRefs.has(key)) {
        seenRefs.add(key);
        providerRefs.push(reference.ref);
      }
    }
    targets.push([role, [...uuids]]);
  }
  const maxRefs = limits.maxProviderReferences ?? MAX_PROVIDER_REFERENCES;
  if (refCount > maxRefs) return tooMany('too_many_provider_references', 'provider references', refCount, maxRefs);
  return { ok: true, params, targets: Object.fromEntries(targets), providerRefs };
}

/** The key of a provider reference in the device directory's answer (`byProviderRefs`). */
export { providerRefKey };

export type MissingReference =
  | { readonly role: string; readonly device_id: string }
  | { readonly role: string; readonly provider_id: string; readonly external_id: string };

export interface DeviceLookups {
  /** Device UUIDs found live in the endpoint's organization or the shared one (a set, or the directory's list). */
  readonly liveIds: ReadonlySet<string> | readonly string[];
  /** `providerRefKey` -> device id, for live devices of the endpoint's organization only. */
  readonly byProviderRef: ReadonlyMap<string, string>;
}

/**
 * Rule 7, once the caller has looked the devices up: every role's device ids (the given UUIDs, then
 * the resolved references, distinct), or 400 `unknown_device_reference` naming what was not found.
 */
export function resolveTargets(
  body: TriggerBody,
  found: DeviceLookups,
): { readonly ok: true; readonly targets: Record<string, string[]> } | TriggerBodyFailure {
  const live: ReadonlySet<string> = Array.isArray(found.liveIds) ? new Set(found.liveIds) : (found.liveIds as ReadonlySet<string>);
  const missing: MissingReference[] = [];
  const resolved = new Map<string, Set<string>>();
  for (const [role, uuids] of Object.entries(body.targets)) {
    resolved.set(role, new Set());
    for (const id of uuids) {
      if (live.has(id)) resolved.get(role)!.add(id);
      else missing.push({ role, device_id: id });
    }
  }
  for (const ref of body.providerRefs) {
    const id = found.byProviderRef.get(providerRefKey(ref));
    if (id === undefined) missing.push({ role: ref.role, provider_id: ref.provider_id, external_id: ref.external_id });
    else resolved.get(ref.role)!.add(id);
  }
  if (missing.length > 0) {
    return {
      ok: false,
      status: 400,
      code: 'unknown_device_reference',
      detail: unknownReferencesMessage(missing),
      extensions: { missing: missing.slice(0, MAX_LISTED_MISSING), missing_count: missing.length },
    };
  }
  return { ok: true, targets: Object.fromEntries([...resolved].map(([role, ids]) => [role, [...ids]])) };
}

/** Quoted like the spec's example; a backslash, a quote or a control character is escaped so the message stays one unambiguous line. */
function quote(text: string): string {
  return `'${text.replace(/[\\']/g, '\\$&').replace(/\p{Cc}/gu, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`;
}

function describe(reference: MissingReference): string {
  const role = reference.role.replace(/\p{Cc}/gu, '?');
  if ('device_id' in reference) return `${role}: device_id=${quote(reference.device_id)}`;
  return `${role}: provider_id=${quote(reference.provider_id)} external_id=${quote(reference.external_id)}`;
}

/**
 * The spec's message: `related_targets names devices not in this organization's inventory: <role>:
 * provider_id='<p>' external_id='<e>'`, one such item per reference joined with "; " (an unknown UUID
 * reads `<role>: device_id='<uuid>'`), at most MAX_LISTED_MISSING of them, then "; and N more".
 */
export function unknownReferencesMessage(missing: readonly MissingReference[]): string {
  const listed = missing.slice(0, MAX_LISTED_MISSING).map(describe);
  if (missing.length > MAX_LISTED_MISSING) listed.push(`and ${missing.length - MAX_LISTED_MISSING} more`);
  return `related_targets names devices not in this organization's inventory: ${listed.join('; ')}`;
}
