import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium; end-to-end tests never download a browser. */
export const CHROMIUM = process.env.SWATH_CHROMIUM ?? '/usr/bin/chromium';

/** Whether Chromium is here; CI must have it, so there a missing browser is an error, not a skip. */
export function chromiumAvailable(): boolean {
  const ok = existsSync(CHROMIUM);
  if (!ok && process.env.CI) throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install chromium).`);
  if (!ok) console.warn(`Chromium not found at ${CHROMIUM}: browser end-to-end tests skipped (apt-get install chromium).`);
  return ok;
}

/** Launches headless Chromium with the flags this machine needs (no network chatter, no GPU). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
