import { LandscapeRenderer } from './landscape.js';
import { buildPlan, rasterizerFor, type FullPlan } from './plan.js';
import type { RasterRequest } from './types.js';
import type { AoiRasterizer } from '../../common/grid/aoi-mask.js';

/** A block of one pyramid level: where it is, and the row stride (samples) of the buffer it is rendered into. */
export interface BlockRect {
  level: number;
  x: number;
  y: number;
  width: number;
  height: number;
  rowStride: number;
}

/**
 * Renders one request's blocks: the AOI mask of a block's rows, then the landscape into the
 * block's buffer (pre-filled with nodata by the caller). The mask of a block row is kept for the
 * row's next blocks.
 */
export class LevelRenderer {
  private readonly renderer: LandscapeRenderer;
  private readonly rasterizer: AoiRasterizer;
  private mask = new Uint8Array(0);
  /** Level and first row of the rows in `mask`. */
  private maskLevel = -1;
  private maskRow = -1;

  constructor(
    readonly plan: FullPlan,
    req: RasterRequest,
  ) {
    this.renderer = new LandscapeRenderer(plan.proj, req.bands, req.dataType, req.date);
    this.rasterizer = rasterizerFor(plan, req);
  }

  /** The plan of req, or why it cannot be produced. */
  static of(req: RasterRequest, bigTiff?: boolean): LevelRenderer | { error: string } {
    const plan = buildPlan(req, { bigTiff });
    return 'error' in plan ? plan : new LevelRenderer(plan, req);
  }

  render(rect: BlockRect, out: Int16Array | Uint8Array): void {
    const L = this.plan.layout.levels[rect.level]!;
    const lp = this.plan.levels[rect.level]!;
    const grid = { originX: this.plan.bounds.minX, originY: this.plan.bounds.maxY, pixelSize: lp.pixelSize, pixelMetres: lp.pixelMetres };
    if (this.maskLevel !== rect.level || this.maskRow !== rect.y) {
      // The mask of the whole block row: the next blocks of the row reuse it.
      if (this.mask.length < L.width * L.blockHeight) this.mask = new Uint8Array(L.width * L.blockHeight);
      const maskGrid = { originX: grid.originX, originY: grid.originY, pixelSize: lp.pixelSize, width: L.width, height: L.height };
      this.rasterizer.fillRows(maskGrid, rect.y, rect.height, this.mask);
      this.maskLevel = rect.level;
      this.maskRow = rect.y;
    }
    this.renderer.renderBlock(grid, rect.x, rect.y, rect.width, rect.height, this.mask, rect.x, L.width, { data: out, offset: 0, rowStride: rect.rowStride });
  }
}
