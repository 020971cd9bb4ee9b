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

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/**
 * ISO 8601 in `timeZone`'s wall clock with its offset, to the second: `2026-11-25T14:03:09+01:00` (`Z` never:
 * UTC reads `+00:00`), for payloads that show times in the account's time zone.
 */
export function zonedIsoTimestamp(date: Date, timeZone: string): string {
  let format = offsetFormatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'longOffset',
    });
    offsetFormatters.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
  // `GMT` alone is UTC; otherwise `GMT+05:30`.
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : (parts.timeZoneName ?? '').replace('GMT', '');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}
