/**
 * The interface's two timestamp formats, both UTC: ISO with microseconds for most resources, and
 * `YYYY-MM-DD HH:MM:SS` for calls and leads. PostgreSQL keeps microseconds but a JS Date holds milliseconds,
 * so the last three digits are always zero.
 */
export function isoTimestamp(date: Date): string;
export function isoTimestamp(date: Date | null | undefined): string | null;
export function isoTimestamp(date: Date | null | undefined): string | null {
  if (!date) return null;
  return `${date.toISOString().slice(0, 23)}000Z`;
}

export function sqlTimestamp(date: Date): string;
export function sqlTimestamp(date: Date | null | undefined): string | null;
export function sqlTimestamp(date: Date | null | undefined): string | null {
  if (!date) return null;
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** Whether the runtime knows `zone` as an IANA time zone name (such as `Europe/Bucharest` or `UTC`). */
export function isTimeZone(zone: string): boolean {
  if (zone.trim() === '' || zone !== zone.trim()) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
