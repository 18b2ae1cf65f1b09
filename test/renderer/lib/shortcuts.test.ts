// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dispatchShortcut, matches, onShortcut, tip } from '../../../renderer/src/lib/shortcuts';

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
});
