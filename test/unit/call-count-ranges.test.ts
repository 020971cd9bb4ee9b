import { describe, expect, it } from 'vitest';
import { splitDays } from '../../src/resources/calls/queries.ts';

describe('splitDays', () => {
  it('takes the whole months inside a range and leaves the days at its edges', () => {
    expect(splitDays('2026-01-15', '2026-04-10')).toEqual({
      months: { from: '2026-02-01', until: '2026-04-01' },
      days: [{ from: '2026-01-15', to: '2026-01-31' }, { from: '2026-04-01', to: '2026-04-10' }],
    });
    expect(splitDays('2026-02-01', '2026-02-28')).toEqual({ months: { from: '2026-02-01', until: '2026-03-01' }, days: [] });
    expect(splitDays('2024-02-10', '2024-12-31')).toEqual({
      months: { from: '2024-03-01', until: '2025-01-01' },
      days: [{ from: '2024-02-10', to: '2024-02-29' }],
    });
  });

  it('keeps a range within one month, or across two partial months, as days', () => {
    expect(splitDays('2026-03-02', '2026-03-30')).toEqual({ days: [{ from: '2026-03-02', to: '2026-03-30' }] });
    expect(splitDays('2026-03-20', '2026-04-10')).toEqual({ days: [{ from: '2026-03-20', to: '2026-04-10' }] });
    expect(splitDays('2026-03-31', '2026-03-31')).toEqual({ days: [{ from: '2026-03-31', to: '2026-03-31' }] });
  });

  it('leaves the months open where the range is', () => {
    expect(splitDays('2026-12-31', undefined)).toEqual({ months: { from: '2027-01-01', until: undefined }, days: [{ from: '2026-12-31', to: '2026-12-31' }] });
    expect(splitDays(undefined, '2026-03-15')).toEqual({ months: { from: undefined, until: '2026-03-01' }, days: [{ from: '2026-03-01', to: '2026-03-15' }] });
    expect(splitDays(undefined, '2026-03-31')).toEqual({ months: { from: undefined, until: '2026-04-01' }, days: [] });
  });
});
