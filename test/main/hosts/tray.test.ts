import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { removeTempDirs } from '../../support/temp-dirs';
import { FakeTray, resetFakeElectron } from './fake-electron';

vi.mock('electron', async () => (await import('./fake-electron')).fakeElectron);

afterAll(removeTempDirs);

const { createTray } = await import('../../../main/hosts/tray');

type Item = { label?: string; type?: string; click?: () => void };
const itemsOf = (tray: FakeTray) => (tray.menu as { template: Item[] }).template;

describe('system tray', () => {
  beforeEach(() => resetFakeElectron());

  it('shows the Swath icon with a tooltip and a menu that runs the app actions', () => {
    const actions = { show: vi.fn(), downloads: vi.fn(), quit: vi.fn() };
    const tray = createTray('/icons/32x32.png', actions, 'linux') as unknown as FakeTray;
    expect(FakeTray.instances).toEqual([tray]);
    expect(tray.image).toMatchObject({ path: '/icons/32x32.png' });
    expect(tray.tooltip).toBe('Swath');
    const items = itemsOf(tray);
    expect(items.map((i) => i.label ?? i.type)).toEqual(['Show Swath', 'Downloads', 'separator', 'Quit Swath']);
    items.find((i) => i.label === 'Downloads')!.click!();
    expect(actions.downloads).toHaveBeenCalledOnce();
    items.find((i) => i.label === 'Quit Swath')!.click!();
    expect(actions.quit).toHaveBeenCalledOnce();
    tray.emit('click');
    expect(actions.show).toHaveBeenCalledOnce();
  });

  it('uses a 16 px image in the macOS menu bar', () => {
    const tray = createTray('/icons/32x32.png', { show: vi.fn(), downloads: vi.fn(), quit: vi.fn() }, 'darwin') as unknown as FakeTray;
    expect(tray.image).toMatchObject({ size: { width: 16, height: 16 } });
  });
});
