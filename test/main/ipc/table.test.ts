import { describe, expect, it } from 'vitest';
import { joinSlices, type HandlerTable } from '../../../main/ipc';

// The channel table is joined from the features' slices: a channel two slices serve is an error.

describe('joinSlices', () => {
  const settings: Pick<HandlerTable, 'settings:get'> = { 'settings:get': () => ({ downloadDir: '/a', theme: 'system', osmLayer: false }) };
  const status: Pick<HandlerTable, 'spend:get'> = { 'spend:get': () => { throw new Error('not called'); } };

  it('joins disjoint slices into one table holding every handler as given', () => {
    const table = joinSlices(settings, status);
    expect(Object.keys(table).sort()).toEqual(['settings:get', 'spend:get']);
    expect(table['settings:get']).toBe(settings['settings:get']);
    expect(table['spend:get']).toBe(status['spend:get']);
  });

  it('refuses a channel served by two slices instead of letting the later one override it', () => {
    const other: Pick<HandlerTable, 'settings:get'> = { 'settings:get': () => ({ downloadDir: '/b', theme: 'dark', osmLayer: true }) };
    expect(() => joinSlices(settings, status, other)).toThrow('Two features serve the channel "settings:get".');
  });
});
