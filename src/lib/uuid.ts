const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is spelled as a UUID: checked before a lookup, since PostgreSQL rejects other text for a uuid column. */
export function isUuid(value: string): boolean {
  return uuidShape.test(value);
}
