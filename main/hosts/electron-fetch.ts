import { net } from 'electron';
import type { HttpFetch } from '../api/http';

/**
 * The Electron implementation of the service client's HTTP: `net.fetch` goes
 * through Chromium's network stack, so it uses the system proxy settings (PAC,
 * WPAD, authenticated proxies) and the OS certificate store, which corporate
 * networks rely on and undici does not see.
 */
export function createElectronFetch(): HttpFetch {
  return (input, init) => net.fetch(input, init);
}
