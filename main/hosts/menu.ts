import type { MenuItemConstructorOptions } from 'electron';

/** Inputs of {@link buildMenuTemplate}. */
export interface MenuOptions {
  appName: string;
  isMac: boolean;
  /** Developer tools are offered only in development builds. */
  isDev: boolean;
  /** Help menu actions for support: About (the in-app dialog), copy and save the diagnostics report. */
  help?: { about(): void; copyDiagnostics(): void; saveDiagnostics(): void };
}

/** The application menu: platform conventions via Electron roles, so shortcuts match the OS. */
export function buildMenuTemplate({ appName, isMac, isDev, help }: MenuOptions): MenuItemConstructorOptions[] {
  const template: MenuItemConstructorOptions[] = [];

  if (isMac) {
    template.push({
      label: appName,
      submenu: [
        { role: 'about' },
        { type: 'separator' },
        { role: 'services' },
        { type: 'separator' },
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        { type: 'separator' },
        { role: 'quit' },
      ],
    });
  }

  template.push({
    label: '&File',
    submenu: [isMac ? { role: 'close' } : { role: 'quit', accelerator: 'CmdOrCtrl+Q' }],
  });

  template.push({
    label: '&Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...(isMac ? [{ role: 'pasteAndMatchStyle' } as const] : []),
      { role: 'delete' },
      { type: 'separator' },
      { role: 'selectAll' },
    ],
  });

  template.push({
    label: '&View',
    submenu: [
      { role: 'reload' },
      ...(isDev ? [{ role: 'forceReload' } as const, { role: 'toggleDevTools' } as const] : []),
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  });

  template.push({
    role: 'windowMenu',
    label: '&Window',
  });

  template.push({
    role: 'help',
    label: '&Help',
    submenu: help
      ? [
          { label: 'Copy diagnostics', click: () => help.copyDiagnostics() },
          { label: 'Save diagnostics…', click: () => help.saveDiagnostics() },
          { type: 'separator' },
          // The in-app dialog (version, contract version, licences) on every platform.
          { label: `About ${appName}`, click: () => help.about() },
        ]
      : // The about panel is in the app menu on macOS.
        isMac ? [] : [{ role: 'about', label: `About ${appName}` }],
  });

  return template;
}
