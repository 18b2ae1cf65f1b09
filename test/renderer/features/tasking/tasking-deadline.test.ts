import { describe, expect, it } from 'vitest';
import { deadlineInfo, formatCountdown, formatLocal, renewalDeadline } from '../../../../renderer/src/features/tasking/model/tasking-deadline';

const at = (iso: string) => new Date(iso);
const deadline = (iso: string) => renewalDeadline(at(iso)).toISOString();

describe('renewal deadline: 00:00 UTC on the 1st of the next UTC month', () => {
  it('works around month ends of every length', () => {
    expect(deadline('2025-01-31T23:59:59.999Z')).toBe('2025-02-01T00:00:00.000Z');
    expect(deadline('2025-04-30T12:00:00Z')).toBe('2025-05-01T00:00:00.000Z');
    expect(deadline('2025-12-31T23:00:00Z')).toBe('2026-01-01T00:00:00.000Z');
    expect(deadline('2025-01-01T00:00:00Z')).toBe('2025-02-01T00:00:00.000Z');
  });

  it('the instant of a deadline already belongs to the next month', () => {
    expect(deadline('2025-03-01T00:00:00.000Z')).toBe('2025-04-01T00:00:00.000Z');
    expect(deadline('2025-02-28T23:59:59.999Z')).toBe('2025-03-01T00:00:00.000Z');
  });

  it('handles February in leap and common years', () => {
    expect(deadline('2024-02-29T23:59:00Z')).toBe('2024-03-01T00:00:00.000Z');
    expect(deadline('2024-02-28T10:00:00Z')).toBe('2024-03-01T00:00:00.000Z');
    expect(deadline('2100-02-28T10:00:00Z')).toBe('2100-03-01T00:00:00.000Z');
    const info = deadlineInfo(at('2024-02-27T00:00:00Z'));
    expect(info.remainingMs).toBe(3 * 86_400_000);
    expect(info.warn).toBe(false);
    expect(deadlineInfo(at('2023-02-26T00:00:01Z')).warn).toBe(true);
  });

  it('follows the UTC month, not the local calendar', () => {
    // 30 Nov 20:00 in New York is already 1 Dec in UTC: the next deadline is 1 Jan.
    expect(deadline('2025-11-30T20:00:00-05:00')).toBe('2026-01-01T00:00:00.000Z');
    // 1 Dec 08:00 in Tokyo is still 30 Nov in UTC: one hour left.
    const tokyo = deadlineInfo(at('2025-12-01T08:00:00+09:00'), { timeZone: 'Asia/Tokyo' });
    expect(tokyo.deadline.toISOString()).toBe('2025-12-01T00:00:00.000Z');
    expect(tokyo.countdown).toBe('1 h 00 min');
    expect(tokyo.local).toMatch(/1 Dec 2025, 09:00/);
  });

  it('shows the deadline in UTC and in the local zone', () => {
    const info = deadlineInfo(at('2025-11-20T12:00:00Z'), { timeZone: 'America/Los_Angeles' });
    expect(info.utc).toBe('2025-12-01 00:00 UTC');
    expect(info.local).toMatch(/Sun, 30 Nov 2025, 16:00/);
    expect(info.local).toMatch(/PST|GMT-8/);
    expect(formatLocal(info.deadline, 'Europe/Berlin')).toMatch(/Mon, 1 Dec 2025, 01:00/);
    // Each zone and locale keeps its own formatter: asking again after another zone gives the same text.
    expect(formatLocal(info.deadline, 'America/Los_Angeles')).toBe(info.local);
    expect(formatLocal(info.deadline, 'Europe/Berlin', 'en-US')).toMatch(/Mon, Dec 1, 2025, 01:00/);
    expect(formatLocal(info.deadline, 'Europe/Berlin')).toMatch(/Mon, 1 Dec 2025, 01:00/);
    expect(() => formatLocal(info.deadline, 'Not/AZone')).toThrow(RangeError);
  });

  it('warns under 72 hours, not at exactly 72', () => {
    expect(deadlineInfo(at('2025-06-28T00:00:00Z')).warn).toBe(false);
    expect(deadlineInfo(at('2025-06-28T00:00:01Z')).warn).toBe(true);
    expect(deadlineInfo(at('2025-06-28T00:00:01Z')).countdown).toBe('2 d 23 h 59 min');
  });

  it('formats a countdown', () => {
    expect(formatCountdown(0)).toBe('passed');
    expect(formatCountdown(30_000)).toBe('under 1 min');
    expect(formatCountdown(61 * 60_000)).toBe('1 h 01 min');
    expect(formatCountdown(59 * 60_000)).toBe('59 min');
  });
});
