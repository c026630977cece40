import type { Command } from 'commander';
import { usageError } from '../errors.js';

/** Flags many verbs declare alike (in their `define`). */
export const jsonFlag = (command: Command) => command.option('--json', "print JSON (the API's field names)");
export const yesFlag = (command: Command) => command.option('-y, --yes', 'do not ask for confirmation (required without a terminal)');

/** A repeatable flag's values, in order (commander's argParser). */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** What every verb of the admin groups reads from its flags besides its own. */
export const flag = {
  json: (raw: Record<string, unknown>) => raw.json === true,
  yes: (raw: Record<string, unknown>) => raw.yes === true,
  string: (raw: Record<string, unknown>, key: string) =>
    typeof raw[key] === 'string' && raw[key] !== '' ? (raw[key] as string) : undefined,
  strings: (raw: Record<string, unknown>, key: string) =>
    Array.isArray(raw[key]) ? (raw[key] as unknown[]).filter((v): v is string => typeof v === 'string') : [],
};

/** A flag whose empty value clears a field: its value, null for "", undefined when absent. */
export function clearable(raw: Record<string, unknown>, key: string): string | null | undefined {
  const value = raw[key];
  if (typeof value !== 'string') return undefined;
  return value === '' ? null : value;
}

/** Two flags that contradict each other (a key of `raw` and the flag's name each): both given is a usage error (exit 2). */
export function exclusive(raw: Record<string, unknown>, a: [key: string, name: string], b: [key: string, name: string]): void {
  const given = (key: string) => raw[key] !== undefined && raw[key] !== false;
  if (given(a[0]) && given(b[0])) throw usageError(`give ${a[1]} or ${b[1]}, not both`);
}

/** `--enable` or `--disable` as the `enabled` field they set, undefined when neither is given. */
export function enabledOf(raw: Record<string, unknown>): boolean | undefined {
  exclusive(raw, ['enable', '--enable'], ['disable', '--disable']);
  return raw.enable === true ? true : raw.disable === true ? false : undefined;
}

/** An update's changes as given; none at all is a usage error (exit 2) whose hint names the flags that change something. */
export function someChange<T extends object>(changes: T, flags: string): T {
  if (Object.values(changes).every((value) => value === undefined)) throw usageError('nothing to change', `give ${flags}`);
  return changes;
}

/** `--tag` (repeatable) or `--clear-tags` as the tags that replace a row's: [] to clear, undefined when neither is given. */
export function replacementTags(raw: Record<string, unknown>): string[] | undefined {
  const tags = flag.strings(raw, 'tag');
  if (raw.clearTags !== true) return tags.length > 0 ? tags : undefined;
  if (tags.length > 0) throw usageError('--tag and --clear-tags cannot go together');
  return [];
}

/** The organization a verb acts on: its positional reference, else `--org` (global, in `raw` too). */
export function orgOf(raw: Record<string, unknown>, positional?: string): string {
  const org = positional ?? flag.string(raw, 'org');
  if (org === undefined) throw usageError('this command needs an organization', 'pass --org ORG (an id or slug)');
  return org;
}

export const enc = encodeURIComponent;

export const ORG_ROLES = ['viewer', 'auditor', 'approver', 'operator', 'admin'] as const;

/** The roles as a flag's help names them. */
export const ROLES_HELP = ORG_ROLES.join('|');

/** A flag's (or argument's) value when it is one of `allowed`, undefined when absent; a usage error (exit 2) naming them otherwise. */
export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flagName: string): T | undefined {
  if (value !== undefined && !(allowed as readonly string[]).includes(value))
    throw usageError(`${flagName} must be one of ${allowed.join(', ')}, not "${value}"`);
  return value as T | undefined;
}

export function roleOf(value: string | undefined, flagName: string): string | undefined {
  return oneOf(value, ORG_ROLES, flagName);
}
