import { describe, expect, it } from 'vitest';
import { contribute, contributions, hasPanel, type Contribution } from '../../../renderer/src/platform/contributions';
import { shortcutCatalogue } from '../../../renderer/src/platform/lib/shortcuts';
// The window's contributions, as the shell registers them. The refusals below register nothing, so
// the registry stays the window's for the files that run after this one.
import { FEATURES } from '../../../renderer/src/shell/features';

const component = { render: () => null };
const panel = (id: string, keys: string) => ({ id, name: id, icon: 'imagery', keys, summary: '', load: async () => component });

/** What is registered, to see that a refusal left it as it was. */
const snapshot = () => JSON.stringify({ ...Object.fromEntries(Object.entries(contributions).map(([k, v]) => [k, v.length])), shortcuts: [...shortcutCatalogue().keys()] });

describe('the contribution registries', () => {
  it("holds the features' panels in the shell's order, each with its key in the shortcut catalogue", () => {
    expect(FEATURES.length).toBe(contributions.features.length);
    expect(contributions.panels.map((p) => p.id)).toEqual(['imagery', 'tasking', 'library', 'products', 'billing', 'account', 'settings', 'watches', 'fields']);
    expect(shortcutCatalogue().get('panel-tasking')).toEqual({ keys: '2', group: 'Panels', description: 'Tasking panel' });
    expect(hasPanel('watches')).toBe(true);
    expect(hasPanel('nowhere')).toBe(false);
    expect(contributions.fills).toEqual([expect.objectContaining({ panel: 'library', slot: 'analysis' }), expect.objectContaining({ panel: 'fields', slot: 'chart' }), expect.objectContaining({ panel: 'library', slot: 'brief' }), expect.objectContaining({ panel: 'library', slot: 'layer' }), expect.objectContaining({ panel: 'library', slot: 'selection' }), expect.objectContaining({ panel: 'fields', slot: 'chart' }),
      ...['shown', 'series', 'layer', 'selection'].map((slot) => expect.objectContaining({ panel: 'library', slot }))]);
    expect(contributions.statusItems.map((s) => s.id)).toEqual(['team', 'brief', 'timelapse']);
    expect(contributions.startViews).toHaveLength(1);
    expect(contributions.savedViews).toHaveLength(1);
    // The map's layers are the features': the settings' online basemap, the fields' parcels.
    expect(contributions.mapLayers.map((l) => l.id)).toEqual(['online-basemap', 'fields-parcels']);
  });

  it("gives every rail panel an icon of its own, drawn by the icon set and unlike the others'", async () => {
    const icons = contributions.panels.map((p) => p.icon);
    expect(new Set(icons).size, icons.join(', ')).toBe(icons.length);
    const source = (await import('node:fs')).readFileSync(new URL('../../../renderer/src/platform/components/Icon.vue', import.meta.url), 'utf8');
    const drawing = (icon: string): string => new RegExp(`\\n  ${icon}: '([^']+)'`).exec(source)?.[1] ?? '';
    for (const icon of icons) expect(drawing(icon), icon).not.toBe('');
    // Distinct to the eye, not only by name: no panel's drawing holds another's.
    for (const a of icons) for (const b of icons) if (a !== b) expect(drawing(b).includes(drawing(a)), `${b} draws ${a}`).toBe(false);
  });

  it.each<[string, Contribution, RegExp]>([
    ['a feature contributed twice', { feature: 'imagery' }, /^Contribution of imagery: feature is already contributed$/],
    ['a panel id taken', { feature: 'zz-a', panel: panel('tasking', 'F9') }, /^Contribution of zz-a: panel\.id "tasking" is already a panel$/],
    ['an empty panel id', { feature: 'zz-a', panel: panel('', 'F9') }, /^Contribution of zz-a: panel\.id is empty$/],
    ['a panel key taken', { feature: 'zz-a', panel: panel('zz-a', '2') }, /^Contribution of zz-a: shortcuts panel-zz-a: the keys 2 are already panel-tasking's$/],
    ['a shortcut id taken', { feature: 'zz-a', shortcuts: [{ id: 'go-search', keys: 'Alt+Q', group: 'Go to', description: 'x' }] }, /^Contribution of zz-a: shortcuts\.id "go-search" is already registered$/],
    ['a platform shortcut id taken', { feature: 'zz-a', shortcuts: [{ id: 'help', keys: 'F9', group: 'General', description: 'x' }] }, /^Contribution of zz-a: shortcuts the shortcut id "help" is already taken$/],
    ['shortcut keys taken', { feature: 'zz-a', shortcuts: [{ id: 'go-zz', keys: 'Alt+S', group: 'Go to', description: 'x' }] }, /^Contribution of zz-a: shortcuts go-zz: the keys Alt\+S are already go-search's$/],
    ['the same keys twice in one contribution', { feature: 'zz-a', shortcuts: [{ id: 'zz-1', keys: 'F9', group: 'General', description: 'x' }, { id: 'zz-2', keys: 'F9', group: 'General', description: 'x' }] }, /zz-2: the keys F9 are taken twice/],
    ['a map layer id twice', { feature: 'zz-a', mapLayers: [{ id: 'zz', install: () => () => undefined }, { id: 'zz', install: () => () => undefined }] }, /^Contribution of zz-a: mapLayers\.id "zz" is already registered$/],
    ['a second keeper of the saved view', { feature: 'zz-a', savedView: { load: async () => null, save: () => undefined } }, /^Contribution of zz-a: savedView is already kept by another feature$/],
    ['a status item id taken', { feature: 'zz-a', statusItems: [{ id: 'team', component }] }, /^Contribution of zz-a: statusItems\.id "team" is already registered$/],
  ])('refuses %s, naming the field, and registers nothing of it', (_, c, message) => {
    const before = snapshot();
    expect(() => contribute(c)).toThrow(message);
    expect(snapshot()).toBe(before);
  });
});
