import { describe, expect, it } from 'vitest';
import { isWithinWindow, minutesOfDay, nextWindowOpening, windowCloses, WEEKDAYS, type CallingWindow } from '../../src/campaigns/window.ts';

const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as const;
const at = (iso: string) => new Date(iso);
const iso = (date: Date | null) => date?.toISOString() ?? null;

describe('the calling window', () => {
  const office: CallingWindow = { timeZone: 'America/New_York', days: weekdays, start: '09:00', end: '17:00' };

  it('reads HH:MM and HH:MM:SS, and refuses anything else', () => {
    expect(minutesOfDay('09:30')).toBe(570);
    expect(minutesOfDay('23:59:00')).toBe(1439);
    for (const bad of ['9:30', '24:00', '12:60', '', '12:00:61', 'noon']) expect(() => minutesOfDay(bad), bad).toThrow(RangeError);
  });

  it('is open on its days between its hours, in its time zone, the end minute included', () => {
    // Monday 2026-11-23, New York is UTC-5.
    expect(isWithinWindow(office, at('2026-11-23T14:00:00Z'))).toBe(true);
    expect(isWithinWindow(office, at('2026-11-23T13:59:59Z'))).toBe(false);
    expect(isWithinWindow(office, at('2026-11-23T22:00:59Z'))).toBe(true);
    expect(isWithinWindow(office, at('2026-11-23T22:01:00Z'))).toBe(false);
    // Saturday.
    expect(isWithinWindow(office, at('2026-11-28T15:00:00Z'))).toBe(false);
  });

  it('opens next at the next allowed day\'s start, across a weekend', () => {
    expect(iso(nextWindowOpening(office, at('2026-11-23T12:00:00Z')))).toBe('2026-11-23T14:00:00.000Z');
    expect(iso(nextWindowOpening(office, at('2026-11-27T22:30:00Z')))).toBe('2026-11-30T14:00:00.000Z');
    // Inside, it is open now.
    expect(iso(nextWindowOpening(office, at('2026-11-23T15:00:00Z')))).toBe('2026-11-23T15:00:00.000Z');
    expect(iso(windowCloses(office, at('2026-11-23T15:00:00Z')))).toBe('2026-11-23T22:01:00.000Z');
    expect(windowCloses(office, at('2026-11-23T23:00:00Z'))).toBeNull();
  });

  it('belongs to the day it opens on when it crosses midnight', () => {
    const late: CallingWindow = { timeZone: 'UTC', days: ['friday'], start: '22:00', end: '02:00' };
    expect(isWithinWindow(late, at('2026-11-27T23:00:00Z'))).toBe(true);
    expect(isWithinWindow(late, at('2026-11-28T01:30:00Z'))).toBe(true);
    expect(isWithinWindow(late, at('2026-11-28T02:01:00Z'))).toBe(false);
    // Saturday night is not Friday's.
    expect(isWithinWindow(late, at('2026-11-28T23:00:00Z'))).toBe(false);
    // Thursday's early hours are not Friday's either.
    expect(isWithinWindow(late, at('2026-11-26T01:00:00Z'))).toBe(false);
    expect(iso(nextWindowOpening(late, at('2026-11-28T03:00:00Z')))).toBe('2026-12-04T22:00:00.000Z');
    expect(iso(windowCloses(late, at('2026-11-27T23:00:00Z')))).toBe('2026-11-28T02:01:00.000Z');
  });

  it('runs windows of touching days on, and never closes a window of every day and hour', () => {
    const allDay: CallingWindow = { timeZone: 'Europe/Berlin', days: WEEKDAYS, start: '00:00', end: '23:59' };
    expect(isWithinWindow(allDay, at('2026-11-24T23:59:59Z'))).toBe(true);
    expect(windowCloses(allDay, at('2026-11-24T12:00:00Z'))).toBeNull();
    const weekdaysAllDay: CallingWindow = { ...allDay, days: weekdays };
    // Monday noon: open until Saturday 00:00 in Berlin (UTC+1).
    expect(iso(windowCloses(weekdaysAllDay, at('2026-11-23T12:00:00Z')))).toBe('2026-11-27T23:00:00.000Z');
    // A start equal to its end is a whole day.
    const sameTime: CallingWindow = { timeZone: 'UTC', days: ['monday'], start: '09:00', end: '09:00' };
    expect(isWithinWindow(sameTime, at('2026-11-24T08:59:00Z'))).toBe(true);
    expect(isWithinWindow(sameTime, at('2026-11-24T09:00:00Z'))).toBe(false);
  });

  it('opens at the jump when its start falls in the hour a clock skips', () => {
    // New York springs forward on Sunday 2026-03-08 from 02:00 EST to 03:00 EDT.
    const early: CallingWindow = { timeZone: 'America/New_York', days: ['sunday'], start: '02:30', end: '04:00' };
    expect(iso(nextWindowOpening(early, at('2026-03-08T05:00:00Z')))).toBe('2026-03-08T07:00:00.000Z');
    expect(isWithinWindow(early, at('2026-03-08T07:00:00Z'))).toBe(true);
    expect(iso(windowCloses(early, at('2026-03-08T07:00:00Z')))).toBe('2026-03-08T08:01:00.000Z');
    // Lord Howe Island skips half an hour, 02:00 to 02:30, on 2026-10-04 (UTC+10:30 to +11).
    const lordHowe: CallingWindow = { timeZone: 'Australia/Lord_Howe', days: ['sunday'], start: '02:10', end: '03:00' };
    expect(iso(nextWindowOpening(lordHowe, at('2026-10-03T12:00:00Z')))).toBe('2026-10-03T15:30:00.000Z');
  });

  it('opens at the first of the two times a clock that falls back shows, and keeps the repeated hour inside', () => {
    // New York falls back on Sunday 2026-11-01 from 02:00 EDT to 01:00 EST: 01:30 happens at 05:30Z and 06:30Z.
    const night: CallingWindow = { timeZone: 'America/New_York', days: ['sunday'], start: '01:30', end: '05:00' };
    expect(iso(nextWindowOpening(night, at('2026-11-01T04:00:00Z')))).toBe('2026-11-01T05:30:00.000Z');
    // 01:10 EST comes after 01:30 EDT: the window is open, its five hours and a half of time.
    expect(isWithinWindow(night, at('2026-11-01T06:10:00Z'))).toBe(true);
    expect(iso(windowCloses(night, at('2026-11-01T06:10:00Z')))).toBe('2026-11-01T10:01:00.000Z');
    // A window closing in the repeated hour closes at its first occurrence.
    const short: CallingWindow = { timeZone: 'America/New_York', days: ['sunday'], start: '00:00', end: '01:15' };
    expect(iso(windowCloses(short, at('2026-11-01T04:30:00Z')))).toBe('2026-11-01T05:16:00.000Z');
    expect(isWithinWindow(short, at('2026-11-01T06:10:00Z'))).toBe(false);
    expect(iso(nextWindowOpening(short, at('2026-11-01T06:10:00Z')))).toBe('2026-11-08T05:00:00.000Z');
  });

  it('keeps zones with half-hour offsets and without daylight saving', () => {
    const kolkata: CallingWindow = { timeZone: 'Asia/Kolkata', days: weekdays, start: '10:00', end: '18:30' };
    // Tuesday 09:59 IST is 04:29Z.
    expect(isWithinWindow(kolkata, at('2026-11-24T04:29:00Z'))).toBe(false);
    expect(iso(nextWindowOpening(kolkata, at('2026-11-24T04:29:00Z')))).toBe('2026-11-24T04:30:00.000Z');
    expect(iso(windowCloses(kolkata, at('2026-11-24T05:00:00Z')))).toBe('2026-11-24T13:01:00.000Z');
  });

  it('has no opening without days', () => {
    expect(nextWindowOpening({ ...office, days: [] }, at('2026-11-23T12:00:00Z'))).toBeNull();
  });

  it('agrees with itself on random windows, zones and instants: an opening is open, nothing before it is, a closing is closed', () => {
    const zones = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/Sao_Paulo', 'UTC'];
    let seed = 20261124;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const time = () => `${String(random(24)).padStart(2, '0')}:${String(random(4) * 15).padStart(2, '0')}`;
    const minute = 60_000;
    for (let run = 0; run < 150; run++) {
      const window: CallingWindow = {
        timeZone: zones[random(zones.length)]!,
        days: WEEKDAYS.filter(() => random(3) > 0),
        start: time(),
        end: time(),
      };
      // Anywhere in 2026, including its clock changes.
      const instant = new Date(Date.UTC(2026, 0, 1) + random(365 * 24 * 60) * minute);
      const case_ = JSON.stringify({ window, instant });
      const opening = nextWindowOpening(window, instant);
      if (window.days.length === 0) {
        expect(opening, case_).toBeNull();
        continue;
      }
      expect(opening, case_).not.toBeNull();
      expect(isWithinWindow(window, opening!), case_).toBe(true);
      for (let probe = instant.getTime(); probe < opening!.getTime(); probe += 37 * minute) expect(isWithinWindow(window, new Date(probe)), case_).toBe(false);
      const closes = windowCloses(window, opening!);
      if (closes === null) continue;
      expect(closes.getTime(), case_).toBeGreaterThan(opening!.getTime());
      expect(isWithinWindow(window, closes), case_).toBe(false);
      expect(isWithinWindow(window, new Date(closes.getTime() - minute)), case_).toBe(true);
    }
  });
});
