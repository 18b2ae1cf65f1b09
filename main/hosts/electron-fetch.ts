import { net } from 'electron';
import { refuseRedirects, type HttpFetch } from '../api/http';

/**
 * The Electron implementation of the service client's HTTP: `net.fetch` goes
 * through Chromium's network stack, so it uses the system proxy settings (PAC,
 * WPAD, authenticated proxies) and the OS certificate store, which corporate
 * networks rely on and undici does not see. Like the Node one, it never follows
 * a redirect ({@link refuseRedirects}).
 */
export function createElectronFetch(): HttpFetch {
  return refuseRedirects((input, init) => net.fetch(input, init));
}
