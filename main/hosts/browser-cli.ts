import path from 'node:path';
import { parseArgs } from 'node:util';
import { basemapOrigins, loadPolicy, policyPath } from '../policy';
import { createApp } from '../app/app';
import { buildContentSecurityPolicy } from './security';
import { privateTempDir } from '../shared/private-temp';
import { startBrowserHost, type BrowserHost } from './browser-host';
import { forkedSimulator } from './simulator-process';

// `npm run dev:browser -- --port 5180`: the real main services and the built
// renderer, in any browser, for development and end-to-end tests.
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      'user-data': { type: 'string' },
      renderer: { type: 'string', default: 'out/renderer' },
      token: { type: 'string' },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, got ${values.port}`);
  // Without --user-data: a fresh private folder (mkdtemp, 0700) per run, removed on exit; never a fixed name in the shared temp dir.
  const ownDir = values['user-data'] ? null : await privateTempDir('swath-browser-host-');
  const userDataDir = path.resolve(values['user-data'] ?? ownDir!.path);
  let host: BrowserHost | null = null;
  const log = (line: string) => console.error(`[swath] ${line}`);
  // The same policy file as the app; this development host honours SWATH_POLICY_FILE, so policies can be tried here.
  const policy = await loadPolicy(policyPath(process.platform, process.env, { packaged: false }), log);
  const app = await createApp({
    userDataDir,
    downloadsDir: path.join(userDataDir, 'downloads'),
    version: process.env.npm_package_version ?? '0.0.0',
    platform: process.platform,
    // The demo service runs in a child process, never on main's thread.
    startSimulator: forkedSimulator(),
    emit: (event, payload) => host?.emit(event, payload),
    log,
    distribution: { policy },
    launchCommand: 'npm run dev:browser',
  });
  host = await startBrowserHost({
    rendererDir: values.renderer, handlers: app.handlers, secrets: app.secrets, rasters: app.rasters, port, greeting: () => [{ event: 'connection:state', payload: app.connection() }], token: values.token, log: (l) => console.error(l),
    contentSecurityPolicy: buildContentSecurityPolicy(basemapOrigins(policy)),
  });
  console.log(`Swath browser host: open ${host.url}`);
  const stop = () => {
    void Promise.all([host?.close(), app.close()])
      .then(() => ownDir?.remove())
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: Error) => {
  console.error(`browser host: ${error.message}`);
  process.exit(1);
});
