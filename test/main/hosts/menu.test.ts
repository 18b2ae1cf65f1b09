import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { buildMenuTemplate } from '../../../main/hosts/menu';

function roles(items: MenuItemConstructorOptions[]): string[] {
  return items.flatMap((item) => [
    ...(item.role ? [item.role] : []),
    ...(Array.isArray(item.submenu) ? roles(item.submenu) : []),
  ]);
}

function menu(template: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions {
  const found = template.find((item) => item.label?.replace('&', '') === label);
  if (!found) throw new Error(`no ${label} menu`);
  return found;
}

describe('buildMenuTemplate', () => {
  it('has File, Edit, View, Window and Help on Windows/Linux with Quit under File', () => {
    const template = buildMenuTemplate({ appName: 'Swath', isMac: false, isDev: false });
    expect(template.map((item) => item.label?.replace('&', ''))).toEqual(['File', 'Edit', 'View', 'Window', 'Help']);
    const file = menu(template, 'File').submenu as MenuItemConstructorOptions[];
    expect(file).toContainEqual(expect.objectContaining({ role: 'quit', accelerator: 'CmdOrCtrl+Q' }));
    expect(roles([menu(template, 'Edit')])).toEqual(expect.arrayContaining(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']));
    expect(menu(template, 'Window').role).toBe('windowMenu');
    expect(roles([menu(template, 'Help')])).toContain('about');
  });

  it('offers developer tools only in development', () => {
    const prod = roles(buildMenuTemplate({ appName: 'Swath', isMac: false, isDev: false }));
    const dev = roles(buildMenuTemplate({ appName: 'Swath', isMac: false, isDev: true }));
    expect(prod).not.toContain('toggleDevTools');
    expect(prod).not.toContain('forceReload');
    expect(dev).toContain('toggleDevTools');
    for (const r of ['reload', 'resetZoom', 'zoomIn', 'zoomOut', 'togglefullscreen']) {
      expect(prod).toContain(r);
      expect(dev).toContain(r);
    }
  });

  it('follows macOS conventions: app menu first with Quit, File closes the window', () => {
    const template = buildMenuTemplate({ appName: 'Swath', isMac: true, isDev: false });
    expect(template[0]!.label).toBe('Swath');
    expect(roles([template[0]!])).toEqual(expect.arrayContaining(['about', 'hide', 'quit']));
    expect(roles([menu(template, 'File')])).toEqual(['close']);
    expect(roles(template).filter((r) => r === 'quit')).toHaveLength(1);
  });
});
