import { Menu, Tray, nativeImage, type MenuItemConstructorOptions } from 'electron';

/** What the tray menu does; each entry is the app's own action. */
export interface TrayActions {
  /** Brings the main window to the front (or reopens it). */
  show: () => void;
  /** Shows the downloads tray of the window. */
  downloads: () => void;
  quit: () => void;
}

/**
 * The system tray (notification area) icon with Swath's icon: a way back to the window while
 * long downloads run in the background. The icon is the 32 px rendering of build/icon.svg
 * (16 px on macOS's menu bar, where larger images are scaled down by the OS).
 */
export function createTray(iconPath: string, actions: TrayActions, platform = process.platform): Tray {
  const image = nativeImage.createFromPath(iconPath);
  const tray = new Tray(platform === 'darwin' ? image.resize({ width: 16, height: 16 }) : image);
  tray.setToolTip('Swath');
  const template: MenuItemConstructorOptions[] = [
    { label: 'Show Swath', click: () => actions.show() },
    { label: 'Downloads', click: () => actions.downloads() },
    { type: 'separator' },
    { label: 'Quit Swath', click: () => actions.quit() },
  ];
  tray.setContextMenu(Menu.buildFromTemplate(template));
  // A click on the icon itself (Windows, most Linux panels) shows the window.
  tray.on('click', () => actions.show());
  return tray;
}
