const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID in its text form (any case): what an id in a path or body must be before it reaches a uuid column. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
