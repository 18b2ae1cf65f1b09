import path from 'node:path';
import { CONTRACT_VERSION } from '../../preload/contract';
import type { HandlerTable } from '../ipc';
import { readJsonFile } from '../shared/files.js';

/** The app:about channel: versions of the app, its contract and its host, and the bundled licences. */

/** What About needs. */
export interface AboutDeps {
  version: string;
  platform: string;
  /** Electron, Chrome and Node versions of the host. */
  versions?: Record<string, string | undefined>;
  /** out/main/licenses.json, written at build time. */
  licensesFile?: string;
}

/** About's slice of the channel table. */
export function aboutHandlers(deps: AboutDeps): Pick<HandlerTable, 'app:about'> {
  return {
    'app:about': async () => {
      const licensesFile = deps.licensesFile ?? path.resolve('out/main/licenses.json');
      let licenses: { name: string; version: string; license: string }[] = [];
      let licensesNote: string | null = null;
      const listed = (await readJsonFile(licensesFile).catch(() => null)) as typeof licenses | null;
      if (listed) licenses = listed;
      else licensesNote = `The licence list is generated at build time (${path.basename(licensesFile)}); this run has none.`;
      const versions = deps.versions ?? {};
      return {
        version: deps.version, contractVersion: CONTRACT_VERSION, platform: deps.platform, arch: process.arch,
        electron: versions.electron ?? null, chrome: versions.chrome ?? null, node: versions.node ?? process.versions.node,
        licenses, licensesNote,
      };
    },
  };
}
