import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { debuggerSwitches } from '../../../main/hosts/electron-host';
import { removeTempDirs } from '../../support/temp-dirs';
import { bootMain, mainReady, quitMains } from './boot-main';

/**
 * An installed build does not start open to a debugger: main/index.ts booted on the fake Electron
 * with --remote-debugging-port (and the like) on its command line.
 */

vi.mock('electron', async () => (await import('./fake-electron')).fakeElectron);

const argv = process.argv;
beforeEach(() => {
  vi.resetModules();
  delete process.env.ELECTRON_RENDERER_URL;
  delete process.env.SWATH_USER_DATA_DIR;
});
afterEach(() => {
  process.argv = argv;
});
afterAll(async () => {
  await quitMains();
  removeTempDirs();
});

describe('a packaged build on a command line with a debugger switch', () => {
  it.each(['remote-debugging-port', 'remote-debugging-pipe', 'inspect'])('--%s (as Chromium parsed it): exits at once, saying why, and opens nothing', async (name) => {
    const electron = await bootMain((e) => {
      e.app.isPackaged = true;
      e.app.switches.add(name);
    });
    expect(electron.app.exit).toHaveBeenCalledExactlyOnceWith(1);
    expect(electron.app.commandLine.removeSwitch).toHaveBeenCalledWith(name);
    expect(electron.dialog.showErrorBox).toHaveBeenCalledExactlyOnceWith('Swath cannot start', expect.stringContaining(`--${name}`));
    expect(electron.app.requestSingleInstanceLock).not.toHaveBeenCalled();
    // Nothing waits for ready: once it comes, main still opens nothing.
    expect(electron.app.whenReady).not.toHaveBeenCalled();
    expect(electron.app.listenerCount('ready')).toBe(0);
    electron.app.readyResolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(electron.BrowserWindow.instances).toHaveLength(0);
    expect(electron.ipcMain.handle).not.toHaveBeenCalled();
    expect(electron.utilityProcess.fork).not.toHaveBeenCalled();
  });

  it('--inspect=9229 in argv (Node reads it, not Chromium): refused the same way', async () => {
    process.argv = [...argv, '--inspect=9229'];
    const electron = await bootMain((e) => {
      e.app.isPackaged = true;
    });
    expect(electron.app.exit).toHaveBeenCalledExactlyOnceWith(1);
    expect(electron.dialog.showErrorBox).toHaveBeenCalledWith('Swath cannot start', expect.stringContaining('--inspect'));
    expect(electron.app.requestSingleInstanceLock).not.toHaveBeenCalled();
  });

  it('a development run with one starts as usual (the developer debugs it)', async () => {
    const electron = await bootMain((e) => {
      e.app.switches.add('remote-debugging-port');
    });
    expect(electron.app.exit).not.toHaveBeenCalled();
    expect(electron.app.requestSingleInstanceLock).toHaveBeenCalled();
    await mainReady(electron);
    expect(electron.BrowserWindow.instances).toHaveLength(1);
  });

  it('a packaged build without one starts as usual', async () => {
    const electron = await bootMain((e) => {
      e.app.isPackaged = true;
    });
    expect(electron.app.exit).not.toHaveBeenCalled();
    await mainReady(electron);
    expect(electron.BrowserWindow.instances).toHaveLength(1);
  });
});

describe('debuggerSwitches', () => {
  const none = { hasSwitch: () => false };
  it('finds every spelling on the command line, up to --', () => {
    expect(debuggerSwitches(none, ['swath', '--remote-debugging-port=9222', '-inspect-brk', '--remote-allow-origins=*'], 'linux')).toEqual(['remote-debugging-port', 'inspect-brk', 'remote-allow-origins']);
    expect(debuggerSwitches(none, ['Swath.exe', '/Remote-Debugging-Pipe', '--INSPECT'], 'win32')).toEqual(['remote-debugging-pipe', 'inspect']);
    // Not a switch on POSIX, not a Chromium switch after --, and other switches are the app's own.
    expect(debuggerSwitches(none, ['swath', '/inspect', '--no-sandbox', '--', '--inspect'], 'linux')).toEqual([]);
    expect(debuggerSwitches({ hasSwitch: (n) => n === 'remote-debugging-address' }, ['swath'], 'darwin')).toEqual(['remote-debugging-address']);
  });
});
