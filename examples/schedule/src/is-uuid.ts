const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a value is a UUID in the 8-4-4-4-12 hex form, as channel ids are. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
