import { describe, expect, it } from 'vitest';
import { FADE_MAX, gifFrameCount, isoWeek, planFrames, videoFrameCount } from '../../../../renderer/src/features/timelapse/model/frames';

// The frame rules: the minimum valid share drops cloudy dates, one frame per period (the clearest),
// oldest first, and every raster left out says why.

const c = (id: string, date: string | null, validShare: number | null) => ({ id, date, validShare });

describe('timelapse frames', () => {
  it('drops the dates below the minimum valid share, saying how clear they were', () => {
    const plan = planFrames([c('a', '2026-04-10', 0.97), c('b', '2026-05-02', 0.42), c('c', '2026-06-15', 0.8), c('d', '2026-07-01', 0.79)], 'date');
    expect(plan.frames.map((f) => f.id)).toEqual(['a', 'c']);
    expect(plan.dropped).toEqual([
      { id: 'b', date: '2026-05-02', reason: 'Clouds or no data: 42 % valid, below the 80 % minimum.' },
      { id: 'd', date: '2026-07-01', reason: 'Clouds or no data: 79 % valid, below the 80 % minimum.' },
    ]);
    expect(planFrames([c('b', '2026-05-02', 0.42)], 'date', 0.4).frames).toHaveLength(1);
  });

  it('keeps the clearest date of each week, month or year (the earlier on a tie)', () => {
    const list = [c('a', '2026-04-06', 0.9), c('b', '2026-04-09', 0.99), c('c', '2026-04-13', 0.95), c('d', '2026-04-14', 0.95), c('e', '2027-01-01', 0.85)];
    expect(planFrames(list, 'week').frames.map((f) => f.id)).toEqual(['b', 'c', 'e']);
    expect(planFrames(list, 'month').frames.map((f) => f.id)).toEqual(['b', 'e']);
    expect(planFrames(list, 'year').frames.map((f) => f.id)).toEqual(['b', 'e']);
    expect(planFrames(list, 'month').dropped.find((d) => d.id === 'a')!.reason).toBe('Not the clearest of 2026-04: 2026-04-09 is 99 % valid, this 90 %.');
  });

  it('lists rasters without a date or a measured share, and sorts frames by date', () => {
    const plan = planFrames([c('z', '2026-09-01', 1), c('y', null, 1), c('x', '2026-01-01', null), c('w', '2026-02-01', 0.9)], 'date');
    expect(plan.frames.map((f) => f.date)).toEqual(['2026-02-01', '2026-09-01']);
    expect(plan.dropped.map((d) => d.id)).toEqual(['y', 'x']);
  });

  it('numbers ISO weeks across the year boundary', () => {
    expect(isoWeek('2026-01-01')).toBe('2026-W01');
    expect(isoWeek('2027-01-01')).toBe('2026-W53');
    expect(isoWeek('2024-12-30')).toBe('2025-W01');
    expect(isoWeek('2026-04-10')).toBe('2026-W15');
  });

  it('counts the pause as repeated frames', () => {
    expect(videoFrameCount(5, { fps: 4, pauseSeconds: 1 })).toBe(9);
    expect(videoFrameCount(0, { fps: 4, pauseSeconds: 1 })).toBe(0);
    // A fade of 2: two blended frames between each pair of dates, in videos and GIFs alike.
    expect(videoFrameCount(5, { fps: 4, pauseSeconds: 1, fade: 2 })).toBe(5 + 4 * 2 + 4);
    expect(gifFrameCount(5, { fps: 4, pauseSeconds: 1, fade: 2 })).toBe(5 + 4 * 2);
    expect(gifFrameCount(1, { fps: 4, pauseSeconds: 1, fade: 2 })).toBe(1);
    expect(gifFrameCount(3, { fps: 4, pauseSeconds: 1, fade: 99 })).toBe(3 + 2 * FADE_MAX);
  });
});
