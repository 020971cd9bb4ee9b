import { describe, expect, it } from 'vitest';
import { dialable } from '../../src/campaigns/leads.ts';
import { retryPolicyOf } from '../../src/campaigns/retries.ts';
import { callingWindowOf } from '../../src/campaigns/window.ts';

describe('which leads a campaign dials', () => {
  it('dials a main lead never called, and any lead scheduled or rescheduled; a contact waits for its turn', () => {
    expect(dialable({ status: 'created', primaryLeadId: null })).toBe(true);
    expect(dialable({ status: 'created', primaryLeadId: 7 })).toBe(false);
    for (const status of ['scheduled', 'rescheduled']) {
      expect(dialable({ status, primaryLeadId: null })).toBe(true);
      expect(dialable({ status, primaryLeadId: 7 })).toBe(true);
    }
    for (const status of ['processing', 'completed', 'reached-max-retries', 'blacklisted']) expect(dialable({ status, primaryLeadId: null })).toBe(false);
  });
});

describe('a campaign\'s settings as its rules take them', () => {
  it('reads the calling window and the retry policy from the campaign\'s columns', () => {
    expect(callingWindowOf({ timezone: 'Europe/Berlin', allowedDays: ['monday'], allowedHoursStartTime: '09:00:00', allowedHoursEndTime: '17:00:00' }))
      .toEqual({ timeZone: 'Europe/Berlin', days: ['monday'], start: '09:00:00', end: '17:00:00' });
    expect(retryPolicyOf({ maxRetries: 3, retryInterval: 30, retryOnVoicemail: true, retryOnGoalIncomplete: false, goalCompletionVariable: 'booked' }, 60_000))
      .toEqual({ maxRetries: 3, retryIntervalMs: 30 * 60_000, retryOnVoicemail: true, retryOnGoalIncomplete: false, goalCompletionVariable: 'booked' });
  });
});
