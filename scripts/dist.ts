import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * `npm run dist [-- electron-builder args]`: says which signing inputs are
 * present for this OS (and that the artifacts will be unsigned when they are
 * not), then runs electron-builder for the current OS. electron-builder reads
 * the same variables itself; nothing here fails when they are absent.
 */

/** What the build will sign with on `platform`, from the environment. */
export function signingReport(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): { signed: boolean; notarized: boolean | null; lines: string[] } {
  const has = (name: string) => Boolean(env[name]?.trim());
  if (platform === 'win32') {
    const cert = has('WIN_CSC_LINK') || has('CSC_LINK');
    return {
      signed: cert,
      notarized: null,
      lines: [cert
        ? `Windows: signing with ${has('WIN_CSC_LINK') ? 'WIN_CSC_LINK' : 'CSC_LINK'}${has('WIN_CSC_KEY_PASSWORD') || has('CSC_KEY_PASSWORD') ? ' (password set)' : ' (no password set)'}.`
        : 'Windows: no WIN_CSC_LINK / CSC_LINK: the installer will be UNSIGNED (SmartScreen warns; updates cannot be signature-checked).'],
    };
  }
  if (platform === 'darwin') {
    const cert = has('CSC_LINK') || has('CSC_NAME');
    const notarize = (has('APPLE_ID') && has('APPLE_APP_SPECIFIC_PASSWORD') && has('APPLE_TEAM_ID')) || (has('APPLE_API_KEY') && has('APPLE_API_KEY_ID') && has('APPLE_API_ISSUER')) || has('APPLE_KEYCHAIN_PROFILE');
    return {
      signed: cert,
      notarized: cert && notarize,
      lines: [
        cert ? 'macOS: signing with CSC_LINK / CSC_NAME (hardened runtime).' : 'macOS: no CSC_LINK / CSC_NAME: electron-builder uses a Developer ID identity from the login keychain if there is one, otherwise the app is UNSIGNED.',
        notarize ? 'macOS: notarizing with the APPLE_* variables.' : 'macOS: no APPLE_ID + APPLE_APP_SPECIFIC_PASSWORD + APPLE_TEAM_ID (or APPLE_API_KEY*): NOT notarized (Gatekeeper blocks it on other Macs).',
      ],
    };
  }
  return { signed: false, notarized: null, lines: ['Linux: AppImage and deb are not code-signed (sign the repository or the files with your own GPG key if needed).'] };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  for (const line of signingReport(process.platform, process.env).lines) console.log(`[dist] ${line}`);
  console.log(`[dist] update feed baked in: ${process.env.SWATH_UPDATE_URL?.trim() || 'none (updates off unless a policy sets updates.url)'}`);
  const bin = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'node_modules', '.bin', process.platform === 'win32' ? 'electron-builder.cmd' : 'electron-builder');
  const run = spawnSync(bin, ['--publish', 'never', ...process.argv.slice(2)], { stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(run.status ?? 1);
}
