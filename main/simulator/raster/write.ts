import { open, unlink } from 'node:fs/promises';
import { throwIfAborted } from '../../shared/abort.js';
import { LandscapeRenderer } from './landscape.js';
import { buildPlan, rasterizerFor } from './plan.js';
import type { RasterRequest } from './types.js';

/** Pixel bytes rendered between writes: large sequential writes, bounded memory, and the event loop gets a turn at every write. */
const CHUNK_BYTES = 4 * 1024 * 1024;

/** Internal writer options; bigTiff forces the BigTIFF container (tests use it on small files). */
export interface WriteOptions {
  signal?: AbortSignal;
  bigTiff?: boolean;
}

/**
 * Streams the GeoTIFF for req to outPath, one chunk of blocks at a time (never the whole image in memory).
 * On failure or abort the partial file is removed and the error rethrown.
 */
export async function writeGeoTiff(
  req: RasterRequest,
  outPath: string,
  opts: WriteOptions = {},
): Promise<{ bytes: number; width: number; height: number }> {
  const { signal } = opts;
  throwIfAborted(signal);
  const plan = buildPlan(req, { bigTiff: opts.bigTiff });
  if ('error' in plan) throw new Error(plan.error);
  const { layout } = plan;
  const nb = req.bands.length;
  const int16 = req.dataType === 'INT16';
  const bytesPerSample = int16 ? 2 : 1;
  const nodata = int16 ? -32768 : 0;
  const renderer = new LandscapeRenderer(plan.proj, req.bands, req.dataType, req.date);
  const rasterizer = rasterizerFor(plan, req);

  const maxBlock = Math.max(...layout.levels.map((l) => l.blockBytes));
  const chunkBytes = Math.max(maxBlock, Math.floor(CHUNK_BYTES / maxBlock) * maxBlock);
  const buffers = [Buffer.alloc(chunkBytes), Buffer.alloc(chunkBytes)];
  const views = buffers.map((b) =>
    int16 ? new Int16Array(b.buffer, b.byteOffset, b.byteLength / 2) : new Uint8Array(b.buffer, b.byteOffset, b.byteLength),
  );

  const fh = await open(outPath, 'w');
  let ok = false;
  let pending: Promise<unknown> = Promise.resolve();
  try {
    await fh.write(layout.header, 0, layout.header.length, 0);
    let cur = 0;
    let used = 0;
    let filePos = layout.header.length;
    const flush = async (): Promise<void> => {
      if (used === 0) return;
      await pending; // the other buffer's write must finish before that buffer is reused
      const buf = buffers[cur]!;
      const len = used;
      const pos = filePos;
      pending = fh.write(buf, 0, len, pos);
      filePos += len;
      cur ^= 1;
      used = 0;
      throwIfAborted(signal);
    };

    for (const li of layout.dataOrder) {
      const L = layout.levels[li]!;
      const lp = plan.levels[li]!;
      if (L.dataOffset !== filePos + used) throw new Error('internal layout mismatch');
      const grid = { originX: plan.bounds.minX, originY: plan.bounds.maxY, pixelSize: lp.pixelSize, pixelMetres: lp.pixelMetres };
      const maskGrid = { originX: grid.originX, originY: grid.originY, pixelSize: lp.pixelSize, width: L.width, height: L.height };
      const mask = new Uint8Array(L.width * L.blockHeight);
      for (let by = 0; by < L.blocksDown; by++) {
        const y0 = by * L.blockHeight;
        const h = Math.min(L.blockHeight, L.height - y0);
        rasterizer.fillRows(maskGrid, y0, h, mask);
        for (let bx = 0; bx < L.blocksAcross; bx++) {
          if (used + L.blockBytes > chunkBytes) await flush();
          const x0 = bx * L.blockWidth;
          const w = Math.min(L.blockWidth, L.width - x0);
          const view = views[cur]!;
          const start = used / bytesPerSample;
          view.fill(nodata, start, start + L.blockBytes / bytesPerSample);
          renderer.renderBlock(grid, x0, y0, w, h, mask, x0, L.width, {
            data: view,
            offset: start,
            rowStride: L.blockWidth * nb,
          });
          used += L.blockBytes;
        }
        throwIfAborted(signal);
      }
    }
    await flush();
    await pending;
    if (filePos !== layout.totalBytes) throw new Error('internal size mismatch');
    ok = true;
  } finally {
    await pending.catch(() => undefined);
    await fh.close();
    if (!ok) await unlink(outPath).catch(() => undefined);
  }
  return { bytes: layout.totalBytes, width: plan.width, height: plan.height };
}
