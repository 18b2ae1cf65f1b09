// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dispatchShortcut, matches, onShortcut, shortcutCatalogue, tip } from '../../../../renderer/src/platform/lib/shortcuts';
// The catalogue as the window has it: the platform's shortcuts and the features' contributions.
import '../../../../renderer/src/shell/features';

const offs: (() => void)[] = [];
afterEach(() => offs.splice(0).forEach((off) => off()));

describe('keyboard shortcuts', () => {
  it('matches keys with modifiers and puts them in tooltips', () => {
    expect(matches(new KeyboardEvent('keydown', { key: 'C', shiftKey: true }), 'copy-geojson')).toBe(true);
    expect(matches(new KeyboardEvent('keydown', { key: 'c' }), 'copy-geojson')).toBe(false);
    expect(matches(new KeyboardEvent('keydown', { key: 'c' }), 'copy-wkt')).toBe(true);
    expect(matches(new KeyboardEvent('keydown', { key: '?', shiftKey: true }), 'help')).toBe(true);
    expect(matches(new KeyboardEvent('keydown', { key: 'Enter', ctrlKey: true }), 'search-dates')).toBe(true);
    expect(tip('Draw a polygon', 'draw-polygon')).toBe('Draw a polygon (P)');
  });

  it('runs the newest handler, and leaves letters to text fields', () => {
    const a = vi.fn();
    const b = vi.fn();
    offs.push(onShortcut('draw-polygon', a), onShortcut('draw-polygon', b));
    expect(dispatchShortcut(new KeyboardEvent('keydown', { key: 'p' }))).toBe(true);
    expect(b).toHaveBeenCalledOnce();
    expect(a).not.toHaveBeenCalled();
    const input = document.createElement('input');
    document.body.appendChild(input);
    const typed = new KeyboardEvent('keydown', { key: 'p', bubbles: true });
    Object.defineProperty(typed, 'target', { value: input });
    expect(dispatchShortcut(typed)).toBe(false);
    const esc = vi.fn();
    offs.push(onShortcut('cancel', esc));
    const escape = new KeyboardEvent('keydown', { key: 'Escape' });
    Object.defineProperty(escape, 'target', { value: input });
    expect(dispatchShortcut(escape)).toBe(true);
    expect(esc).toHaveBeenCalledOnce();
  });

  it('"go to" shortcuts are Alt+letter: they act while typing, match the physical key, and avoid the window menu\'s mnemonics', () => {
    const go = vi.fn();
    offs.push(onShortcut('go-search', go));
    const input = document.createElement('input');
    document.body.appendChild(input);
    const altS = new KeyboardEvent('keydown', { key: 's', code: 'KeyS', altKey: true });
    Object.defineProperty(altS, 'target', { value: input });
    expect(dispatchShortcut(altS)).toBe(true);
    expect(go).toHaveBeenCalledOnce();
    // macOS types ß for Option+S: the physical key still matches; plain s does not.
    expect(matches(new KeyboardEvent('keydown', { key: 'ß', code: 'KeyS', altKey: true }), 'go-search')).toBe(true);
    expect(matches(new KeyboardEvent('keydown', { key: 's', code: 'KeyS' }), 'go-search')).toBe(false);
    // AltGr (Ctrl+Alt on Windows) types characters: not a shortcut.
    expect(matches(new KeyboardEvent('keydown', { key: 's', code: 'KeyS', altKey: true, ctrlKey: true }), 'go-search')).toBe(false);
    const goKeys = [...shortcutCatalogue().values()].filter((s) => s.group === 'Go to').map((s) => s.keys);
    expect(goKeys.length).toBeGreaterThanOrEqual(10);
    expect(new Set(goKeys).size).toBe(goKeys.length);
    for (const k of goKeys) expect(k, k).toMatch(/^Alt\+[A-DGI-UX-Z]$/);
  });
});
