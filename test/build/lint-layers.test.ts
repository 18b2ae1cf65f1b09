/**
 * The layer rules of eslint.config.js fail `npm run lint`: ESLint's own API lints small offending
 * files (virtual, at real paths) with the repository's config and must report each import.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

/** The no-restricted-imports / no-restricted-globals messages ESLint reports for `code` placed at `file`. */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-globals')
    .map((m) => { expect(m.severity).toBe(2); return m.message; });
}

describe('layers enforced by lint', () => {
  it.each([
    ['renderer/src/stores/x.ts', "import { readGeoTiffHeader } from '../../../main/geotiff/index.js';\nexport const x = readGeoTiffHeader;\n", /may not import main/],
    ['renderer/src/lib/x.ts', "import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n", /Node built-ins/],
    ['common/x.ts', "import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n", /Node built-ins/],
    ['common/grid/x.ts', "import { ApiError } from '../../main/api/errors.js';\nexport const x = ApiError;\n", /imports nothing outside itself/],
    ['common/x.ts', "import type { IpcError } from '../preload/contract/errors';\nexport type X = IpcError;\n", /imports nothing outside itself/],
    ['common/x.ts', 'export const x = (): string => document.title;\n', /no DOM or Node globals/],
    ['common/x.ts', 'export const x = (): string => process.platform;\n', /no DOM or Node globals/],
    ['preload/contract/x.ts', "import { ApiError } from '../../main/api/errors';\nexport const x = ApiError;\n", /only common/],
    ['main/api/x.ts', "import { toIpcError } from '../ipc/errors.js';\nexport const x = toIpcError;\n", /below ipc/],
    ['main/keychain/x.ts', "import { createApp } from '../services/app.js';\nexport const x = createApp;\n", /below ipc/],
    ['main/downloads/batch/x.ts', "import { startElectronHost } from '../../hosts/electron-host.js';\nexport const x = startElectronHost;\n", /below ipc/],
    ['main/library/x.ts', "import { writeGeoTiff } from '../simulator/raster/index.js';\nexport const x = writeGeoTiff;\n", /main\/simulator/],
    ['main/geotiff/x.ts', "import { parseBandnames } from '../simulator/raster/bands.js';\nexport const x = parseBandnames;\n", /main\/simulator/],
    ['main/services/x.ts', "import { startBrowserHost } from '../hosts/browser-host';\nexport const x = startBrowserHost;\n", /services\/ may not import hosts/],
    ['main/services/x.ts', "import { startSimulator } from '../simulator';\nexport const x = startSimulator;\n", /main\/simulator/],
    ['main/ipc/x.ts', "import { startSimulator } from '../simulator/index.js';\nexport const x = startSimulator;\n", /main\/simulator/],
    ['main/library/x.ts', "import { ipcMain } from 'electron';\nexport const x = ipcMain;\n", /Electron is used only/],
    ['main/simulator/x.ts', "import { LibraryCatalog } from '../library/catalog.js';\nexport const x = LibraryCatalog;\n", /only common\/, main\/geotiff, main\/shared/],
  ])('%s: %s is refused', async (file, code, message) => {
    const errors = await layerErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });

  it.each([
    ['main/library/x.ts', "import { writePyramid } from '../geotiff/index.js';\nimport { AppError } from '../../common/errors.js';\nexport const x = [writePyramid, AppError];\n"],
    ['main/services/x.ts', "import type { HandlerTable } from '../ipc';\nimport { DownloadQueue } from '../downloads';\nexport type X = HandlerTable | DownloadQueue;\n"],
    ['main/hosts/x.ts', "import { startSimulator } from '../simulator';\nexport const x = startSimulator;\n"],
    ['main/simulator/raster/x.ts', "import { writePyramid } from '../../geotiff/index.js';\nimport { utmEpsgFor } from '../../../common/geodesy.js';\nexport const x = [writePyramid, utmEpsgFor];\n"],
    ['renderer/src/lib/x.ts', "import { parseBandnames } from '../../../common/bandnames';\nimport type { IpcError } from '../../../preload/contract';\nexport const x = parseBandnames;\nexport type X = IpcError;\n"],
    ['common/grid/x.ts', "import proj4 from 'proj4';\nimport { METRES_PER_DEGREE } from '../geodesy.js';\nexport const x = [proj4, METRES_PER_DEGREE];\n"],
  ])('%s: allowed imports pass', async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });
});
