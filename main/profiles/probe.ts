import { RedirectRefusedError, refuseRedirects, type HttpFetch } from '../api';
import type { KeyProbe } from './profile-store.js';

/**
 * The key test: account info asked with the key. The probe carries the key, so it follows the
 * client's no-redirect rule: a redirect is refused and the key is not sent on.
 */
export function httpKeyProbe(fetchImpl: HttpFetch = fetch): KeyProbe {
  const doFetch = refuseRedirects(fetchImpl);
  return async ({ baseUrl, key, signal }) => {
    try {
      const res = await doFetch(`${baseUrl}/api/account/info`, { headers: { 'x-api-key': key, accept: 'application/json' }, signal });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status === 401 || res.status === 403) return { status: 'auth', httpStatus: res.status };
      if (!res.ok) return { status: 'network', message: `The service answered HTTP ${res.status}.` };
      return { status: 'ok' };
    } catch (error) {
      if (error instanceof RedirectRefusedError) {
        return { status: 'network', message: `The service redirected the key test (HTTP ${error.status}); the key was not sent on. Set the base URL to the final address.` };
      }
      return { status: 'network', message: (error as Error).name === 'TimeoutError' ? 'The service did not answer in time.' : 'The service could not be reached.' };
    }
  };
}
