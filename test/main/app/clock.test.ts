import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../main/platform/clock';
import { startTestApp, type TestApp } from '../security/helpers.js';

// The clock is a port the composition root injects; every feature it builds reads
// the time from it (createApp's `clock`), not from Date.now().

const FIXED = Date.parse('2031-07-15T12:34:56Z');

describe('an app core on a fixed clock', () => {
  let t: TestApp;
  const clock: Clock = { now: () => FIXED };
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('names an export by the injected clock', async () => {
    const res = await t.call('export:geojson', { name: 'aoi', features: [{ layer: 'aoi', geometry: { type: 'Point', coordinates: [13.4, 52.5] } }] });
    expect(res).toMatchObject({ ok: true, data: { cancelled: false, features: 1 } });
    expect(path.basename(res.data.file)).toBe('aoi-20310715-123456.geojson');
    expect(JSON.parse(readFileSync(res.data.file, 'utf8'))).toMatchObject({ type: 'FeatureCollection' });
  });

  it('dates the diagnostics report by the injected clock', async () => {
    const res = await t.call('diagnostics:get', {});
    expect(res).toMatchObject({ ok: true });
    expect(res.data.text).toContain('# Swath diagnostics, 2031-07-15T12:34:56.000Z');
  });

  it('reads the spend month by the injected clock', async () => {
    expect(await t.call('spend:get', { costEur: 1 })).toMatchObject({ ok: true, data: { month: '2031-07' } });
  });
});
