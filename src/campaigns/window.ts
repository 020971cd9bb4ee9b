/**
 * A campaign's calling window: the weekdays and the hours of the day, in the campaign's time zone, in which it
 * may dial. Pure (the time zone rules come from the runtime's ICU data), so the campaign workflow can call it
 * and tests can pin every edge: windows crossing midnight, and the days a clock jumps forward or back.
 *
 * - A window belongs to the weekday it opens on: Friday 22:00-02:00 runs from Friday 22:00 to Saturday 02:00.
 * - The end time is inclusive to the minute: 09:00-17:00 dials until 17:00:59, and the default 00:00-23:59 is
 *   the whole day. A start equal to the end is a window of 24 hours.
 * - A day's window is the span of time from its opening to its closing. On the day the clock jumps forward, a
 *   wall time in the gap stands for the jump (02:30 in a gap from 02:00 to 03:00 is 03:00); on the day it falls
 *   back, a wall time that happens twice stands for its first occurrence, and the repeated hour between an
 *   opening and a closing is inside.
 */

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type Weekday = typeof WEEKDAYS[number];

export interface CallingWindow {
  /** IANA time zone, e.g. `America/New_York`. */
  timeZone: string;
  days: readonly Weekday[];
  /** `HH:MM` or `HH:MM:SS` (seconds are ignored), 24-hour. */
  start: string;
  end: string;
}

/** A campaign's settings that make its window, as its row holds them. */
export interface WindowSettings {
  timezone: string;
  allowedDays: readonly Weekday[];
  allowedHoursStartTime: string;
  allowedHoursEndTime: string;
}

/** The calling window of a campaign's settings. */
export function callingWindowOf(campaign: WindowSettings): CallingWindow {
  return { timeZone: campaign.timezone, days: campaign.allowedDays, start: campaign.allowedHoursStartTime, end: campaign.allowedHoursEndTime };
}

const MINUTE_MS = 60_000;
const DAY_MINUTES = 24 * 60;
/** How far ahead an opening is looked for: a week, and a day for a window that opened yesterday. */
const SEARCH_DAYS = 9;

/** Minutes after midnight of an `HH:MM[:SS]` time; throws on anything else. */
export function minutesOfDay(time: string): number {
  const match = /^([01]\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?$/.exec(time);
  if (!match) throw new RangeError(`${JSON.stringify(time)} is not a time of day (HH:MM).`);
  return Number(match[1]) * 60 + Number(match[2]);
}

interface WallTime {
  /** The local date as days since 1970-01-01, so dates step and compare as numbers. */
  day: number;
  weekday: number;
  /** Minutes after local midnight. */
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    formatters.set(timeZone, format);
  }
  return format;
}

/** The wall clock in `timeZone` at `instant` (ms since the epoch), to the minute. */
function wallTime(instant: number, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const day = Math.floor(Date.UTC(parts.year!, parts.month! - 1, parts.day) / (DAY_MINUTES * MINUTE_MS));
  // 1970-01-01 was a Thursday.
  return { day, weekday: (day + 4) % 7, minute: parts.hour! * 60 + parts.minute! };
}

/** Minutes of wall-clock time since 1970-01-01 00:00 local: a number that only goes back when the clock falls back. */
const wallMinutes = (wall: WallTime) => wall.day * DAY_MINUTES + wall.minute;

/** How far the wall clock in `timeZone` is ahead of UTC at `instant`, in ms. */
function offsetAt(instant: number, timeZone: string): number {
  return wallMinutes(wallTime(instant, timeZone)) * MINUTE_MS - Math.floor(instant / MINUTE_MS) * MINUTE_MS;
}

/**
 * The first instant (to the minute) at which the wall clock in `timeZone` reads `minute` minutes after the
 * midnight that starts `day` (days since 1970-01-01; minutes past 24 h run into the next days), or, when a jump
 * forward skips that wall time, the instant of the jump.
 */
function instantOf(day: number, minute: number, timeZone: string): number {
  const target = day * DAY_MINUTES + minute;
  const asUtc = target * MINUTE_MS;
  const dayMs = DAY_MINUTES * MINUTE_MS;
  // The zone's offsets either side of the wall time (a day away is past any change of that night): a wall time
  // that happens twice matches both, one that happens once matches one, one in a gap matches neither.
  const matches = [asUtc - dayMs, asUtc, asUtc + dayMs]
    .map((probe) => asUtc - offsetAt(probe, timeZone))
    .filter((candidate) => wallMinutes(wallTime(candidate, timeZone)) === target);
  if (matches.length > 0) return Math.min(...matches);
  // In a gap the wall clock only moves forward: the first minute past the target is the jump.
  let low = asUtc - dayMs;
  let high = asUtc + dayMs;
  while (high - low > MINUTE_MS) {
    const middle = low + Math.floor((high - low) / MINUTE_MS / 2) * MINUTE_MS;
    if (wallMinutes(wallTime(middle, timeZone)) >= target) high = middle;
    else low = middle;
  }
  return high;
}

/** The window's opening (minutes after midnight), its length in minutes, and its weekdays (0 is Sunday). */
function bounds(window: CallingWindow): { start: number; length: number; days: Set<number> } {
  const start = minutesOfDay(window.start);
  const last = minutesOfDay(window.end);
  const length = last === start ? DAY_MINUTES : (last + 1 - start + DAY_MINUTES) % DAY_MINUTES || DAY_MINUTES;
  return { start, length, days: new Set(window.days.map((day) => WEEKDAYS.indexOf(day))) };
}

/** The windows that open on the local days `from` to `to` (days since 1970-01-01), as intervals of instants. */
function windowsBetween(window: CallingWindow, from: number, to: number): { opens: number; closes: number }[] {
  const { start, length, days } = bounds(window);
  const windows = [];
  for (let day = from; day <= to; day++) {
    if (days.has((day + 4) % 7)) windows.push({ opens: instantOf(day, start, window.timeZone), closes: instantOf(day, start + length, window.timeZone) });
  }
  return windows;
}

/** The local day of `instant` in the window's time zone. */
const localDay = (window: CallingWindow, instant: Date) => wallTime(instant.getTime(), window.timeZone).day;

/** Whether the campaign may dial at `instant`. */
export function isWithinWindow(window: CallingWindow, instant: Date): boolean {
  const day = localDay(window, instant);
  const time = instant.getTime();
  return windowsBetween(window, day - 1, day + 1).some(({ opens, closes }) => opens <= time && time < closes);
}

/** When the campaign may dial next: `instant` itself inside the window, else the next opening; null with no days. */
export function nextWindowOpening(window: CallingWindow, instant: Date): Date | null {
  if (isWithinWindow(window, instant)) return instant;
  const day = localDay(window, instant);
  const next = windowsBetween(window, day, day + SEARCH_DAYS).find(({ opens }) => opens > instant.getTime());
  return next ? new Date(next.opens) : null;
}

/**
 * When the window `instant` is in closes: the first instant after it at which the campaign may not dial
 * (windows of consecutive days that touch run on). Null when `instant` is outside, or the window never closes.
 */
export function windowCloses(window: CallingWindow, instant: Date): Date | null {
  const { length, days } = bounds(window);
  if (days.size === WEEKDAYS.length && length === DAY_MINUTES) return null;
  const day = localDay(window, instant);
  const time = instant.getTime();
  let closes: number | null = null;
  for (const next of windowsBetween(window, day - 1, day + SEARCH_DAYS)) {
    if (closes === null ? next.opens <= time && time < next.closes : next.opens <= closes) closes = Math.max(closes ?? 0, next.closes);
    else if (closes !== null) break;
  }
  return closes === null ? null : new Date(closes);
}
