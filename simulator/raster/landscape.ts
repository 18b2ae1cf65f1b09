/**
 * Synthetic, deterministic land surface. Everything is a function of the position on the sphere and
 * the day of year, so adjacent requests, overviews and different projections of one place agree.
 *
 * Cost model: projection and the smooth "macro" noise fields are evaluated on coarse node grids and
 * interpolated; per pixel only cheap work remains (a field/block lookup and linear band mixing).
 */
import { ALL_BANDS, type BandSpec } from './bands.js';
import { fbm3, hash3, hash3u } from './noise.js';
import type { Projection } from '../../common/grid/projection.js';

const R = 6371008.8;
const DEG = Math.PI / 180;

/** Node spacing (pixels) of the projection grid; lon/lat is bilinearly interpolated in between. */
const PROJ_STEP = 32;

// Endmember reflectance spectra, bands in ALL_BANDS order (B2 B3 B4 B5 B6 B7 B8 B8A B11 B12).
const E_WATER = [0.045, 0.04, 0.025, 0.018, 0.012, 0.01, 0.008, 0.007, 0.004, 0.003];
const E_VEG = [0.03, 0.065, 0.03, 0.1, 0.29, 0.37, 0.41, 0.42, 0.21, 0.1];
const E_FOREST = [0.02, 0.04, 0.02, 0.065, 0.2, 0.26, 0.29, 0.3, 0.13, 0.055];
const E_DRY = [0.07, 0.095, 0.12, 0.15, 0.19, 0.21, 0.23, 0.24, 0.33, 0.24];
const E_SOIL = [0.075, 0.1, 0.14, 0.165, 0.185, 0.2, 0.21, 0.22, 0.3, 0.25];
const E_URBAN = [0.09, 0.095, 0.1, 0.11, 0.12, 0.125, 0.13, 0.135, 0.16, 0.15];
const ENDMEMBERS = [E_WATER, E_VEG, E_FOREST, E_DRY, E_SOIL, E_URBAN];
// Their indices.
const J_WATER = 0;
const J_VEG = 1;
const J_FOREST = 2;
const J_DRY = 3;
const J_SOIL = 4;
const J_URBAN = 5;

// Pixel classes.
const CLASS_WATER = 0;
const CLASS_URBAN = 1;
const CLASS_FOREST = 2;
const CLASS_FARM = 3;
/**
 * Per class, the endmembers its pixels can have a non-zero weight of, in endmember order (padded with a
 * zero-weight one): water, streets and buildings, forest, farmland; dry climates move green to dry and soil.
 */
const CLASS_ENDMEMBERS = [
  [J_WATER, J_VEG, J_SOIL, J_URBAN],
  [J_VEG, J_DRY, J_SOIL, J_URBAN],
  [J_FOREST, J_DRY, J_SOIL, J_URBAN],
  [J_VEG, J_DRY, J_SOIL, J_URBAN],
];

/** Inverse edge (1/m) of the cube cells that define farm regions with their own field layout. */
const INV_REGION = 1 / 40000;

// Macro fields evaluated on the coarse node grid.
const F_WATER = 0;
const F_RIVER = 1;
const F_LAND = 2;
const F_URBAN = 3;
const F_VAR = 4;
const F_SEASON = 5; // signed seasonal amplitude: sign = hemisphere, magnitude 0 at the equator .. 1 at mid latitudes
const F_ARID = 6;
const N_FIELDS = 7;

const WATER_T = -0.3;
const URBAN_T = 0.44;
const FOREST_T = 0.12;

// Crop phenology classes and their variants (phase shifts), see phenology().
const N_CROPS = 4;
const N_VARIANTS = 4;

/** Day of year (1-366) of a YYYY-MM-DD date; invalid dates fall back to mid-year. */
export function dayOfYear(date: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  if (!m) return 182;
  const t = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!);
  if (!Number.isFinite(t)) return 182;
  return Math.floor((t - Date.UTC(+m[1]!, 0, 1)) / 86400000) + 1;
}

function bump(day: number, peak: number, halfWidth: number): number {
  let d = Math.abs(day - peak) % 365;
  if (d > 182.5) d = 365 - d;
  return d >= halfWidth ? 0 : 0.5 + 0.5 * Math.cos((Math.PI * d) / halfWidth);
}

/** Greenness (0..1) and share of dry residue in the non-green part, for a crop class on a local day of year. */
function phenology(crop: number, day: number): [number, number] {
  switch (crop) {
    case 0: {
      // Winter cereal: green in spring, harvested mid-summer, stubble then bare until sown again.
      const g = 0.15 + 0.75 * bump(day, 135, 85);
      const dry = day > 170 && day < 260 ? 0.8 : 0.2;
      return [g, dry];
    }
    case 1: {
      // Summer crop (maize/soy): bare in spring, green in mid-summer, dry before harvest.
      const g = 0.05 + 0.85 * bump(day, 215, 60);
      const dry = day > 240 && day < 300 ? 0.9 : 0.1;
      return [g, dry];
    }
    case 2:
      // Grassland / pasture: green most of the year, best in late spring.
      return [0.45 + 0.45 * bump(day, 150, 120), 0.6];
    default:
      // Fallow / ploughed land.
      return [0.08 + 0.2 * bump(day, 160, 60), 0.3];
  }
}

function localDay(doy: number, south: boolean, shift: number): number {
  return ((((doy + (south ? 182 : 0) + shift - 1) % 365) + 365) % 365) + 1;
}

/** One pixel grid (a resolution level) in output CRS units. */
export interface RenderGrid {
  originX: number;
  originY: number;
  pixelSize: number;
  /** Approximate ground size of a pixel, used for level-of-detail decisions. */
  pixelMetres: number;
}

/** Destination of one rendered block: pixel-interleaved samples, pre-filled with nodata by the caller. */
export interface RenderTarget {
  data: Int16Array | Uint8Array;
  offset: number;
  rowStride: number;
}

/** Renders blocks of the synthetic landscape for one request (bands, data type, date, CRS). */
export class LandscapeRenderer {
  private readonly nOut: number;
  private readonly outKind: Int32Array;
  /** Whether every output is a reflectance band (no index), and the largest DN of a reflectance band. */
  private readonly bandsOnly: boolean;
  private readonly bandMax: number;
  // DN = clamp(round(value * scale + offset), min, max), value = reflectance or index.
  private readonly outScale: Float64Array;
  /**
   * Per pixel class, output band and the class's endmembers (CLASS_ENDMEMBERS) [(class * nOut + band) * 4 + k]:
   * a band's reflectance times its scale, an index's A reflectance.
   */
  private readonly classA: Float64Array;
  /** An index's B reflectance, likewise. */
  private readonly classB: Float64Array;
  /** An index's offset, shifted by 65536 + 0.5 so truncation of the positive sum rounds half up. */
  private readonly outBias: Float64Array;
  private readonly outMin: Int32Array;
  private readonly outMax: Int32Array;
  private readonly cropN = new Float64Array(N_CROPS * N_VARIANTS);
  private readonly cropS = new Float64Array(N_CROPS * N_VARIANTS);
  private readonly cropT = new Float64Array(N_CROPS * N_VARIANTS);
  private readonly dryN = new Float64Array(N_CROPS * N_VARIANTS);
  private readonly dryS = new Float64Array(N_CROPS * N_VARIANTS);
  private readonly decidN: number;
  private readonly decidS: number;

  // Scratch buffers, sized for the largest block on first use.
  private gx = new Float64Array(0);
  private gy = new Float64Array(0);
  private gz = new Float64Array(0);
  private climate = new Float64Array(0); // 3 values per projection node, see evalClimate
  private fields = new Float32Array(0);

  constructor(
    private readonly proj: Projection,
    bands: BandSpec[],
    dataType: 'INT16' | 'UINT8',
    date: string,
  ) {
    const int16 = dataType === 'INT16';
    this.bandsOnly = bands.every((b) => b.kind === 'band');
    this.bandMax = int16 ? 32767 : 255;
    const spectrum = (name: string, scale: number, to: Float64Array, o: number): void => {
      const bi = ALL_BANDS.indexOf(name as (typeof ALL_BANDS)[number]);
      CLASS_ENDMEMBERS.forEach((js, cls) => js.forEach((j, k) => (to[(cls * bands.length + o) * 4 + k] = ENDMEMBERS[j]![bi]! * scale)));
    };
    this.nOut = bands.length;
    this.outKind = new Int32Array(bands.length);
    this.outScale = new Float64Array(bands.length);
    this.outBias = new Float64Array(bands.length);
    this.outMin = new Int32Array(bands.length);
    this.outMax = new Int32Array(bands.length);
    this.classA = new Float64Array(CLASS_ENDMEMBERS.length * bands.length * 4);
    this.classB = new Float64Array(CLASS_ENDMEMBERS.length * bands.length * 4);
    bands.forEach((b, o) => {
      if (b.kind === 'band') {
        this.outKind[o] = 0;
        // INT16: reflectance * 10000. UINT8: reflectance * 255 / 0.4 (0.4 saturates), 0 is nodata.
        this.outScale[o] = int16 ? 10000 : 255 / 0.4;
        spectrum(b.name, this.outScale[o], this.classA, o);
        this.outMin[o] = 1;
        this.outMax[o] = this.bandMax;
      } else {
        this.outKind[o] = 1;
        // The brightness factor cancels in a normalised difference, so unscaled reflectances suffice.
        spectrum(b.a, 1, this.classA, o);
        spectrum(b.b, 1, this.classB, o);
        // INT16: index * 32767 (-32768 stays nodata). UINT8: (index + 1) * 127 + 1, i.e. -1 -> 1 and 1 -> 255.
        this.outScale[o] = int16 ? 32767 : 127;
        this.outBias[o] = (int16 ? 0 : 128) + 65536.5;
        this.outMin[o] = int16 ? -32767 : 1;
        this.outMax[o] = int16 ? 32767 : 255;
      }
    });

    const doy = dayOfYear(date);
    for (let c = 0; c < N_CROPS; c++) {
      for (let v = 0; v < N_VARIANTS; v++) {
        const i = c * N_VARIANTS + v;
        const shift = (v - 1.5) * 8; // farms do not all sow on the same day
        const [gn, dn] = phenology(c, localDay(doy, false, shift));
        const [gs, ds] = phenology(c, localDay(doy, true, shift));
        // Near the equator there are several growing seasons: spread the variants over the year.
        const [gt] = phenology(c, localDay(doy, false, v * 91 + c * 37));
        this.cropN[i] = gn;
        this.cropS[i] = gs;
        this.cropT[i] = gt;
        this.dryN[i] = dn;
        this.dryS[i] = ds;
      }
    }
    this.decidN = 0.3 + 0.62 * bump(localDay(doy, false, 0), 200, 95);
    this.decidS = 0.3 + 0.62 * bump(localDay(doy, true, 0), 200, 95);
  }

  private ensure(maxW: number, maxH: number, step: number): void {
    const gn = (Math.ceil(maxW / PROJ_STEP) + 2) * (Math.ceil(maxH / PROJ_STEP) + 2);
    if (this.gx.length < gn) {
      this.gx = new Float64Array(gn);
      this.gy = new Float64Array(gn);
      this.gz = new Float64Array(gn);
      this.climate = new Float64Array(3 * gn);
    }
    const fn = (Math.ceil(maxW / step) + 2) * (Math.ceil(maxH / step) + 2) * N_FIELDS;
    if (this.fields.length < fn) this.fields = new Float32Array(fn);
  }

  /**
   * Macro node spacing in pixels, a power of two dividing PROJ_STEP: about 160-200 m on the ground, but never
   * every pixel, because the fields are smooth enough for 2-pixel interpolation even at coarse resolutions.
   */
  private static macroStep(pixelMetres: number): number {
    let s = 2;
    while (s < PROJ_STEP && s * 2 * pixelMetres <= 200) s *= 2;
    return s;
  }

  /**
   * Renders pixels [x0, x0 + w) x [y0, y0 + h) of grid into target where mask (row stride maskStride,
   * starting at maskOffset for row y0 / column x0) is non-zero; other pixels are left untouched.
   */
  renderBlock(
    grid: RenderGrid,
    x0: number,
    y0: number,
    w: number,
    h: number,
    mask: Uint8Array,
    maskOffset: number,
    maskStride: number,
    target: RenderTarget,
  ): void {
    // Nothing to compute for blocks entirely outside the AOI.
    let any = false;
    for (let r = 0; r < h && !any; r++) {
      const m0 = maskOffset + r * maskStride;
      for (let c = 0; c < w; c++) {
        if (mask[m0 + c]) {
          any = true;
          break;
        }
      }
    }
    if (!any) return;

    const step = LandscapeRenderer.macroStep(grid.pixelMetres);
    this.ensure(w, h, step);
    const ps = grid.pixelSize;
    // Node grids are anchored to the global pixel grid (column X / ps, row -Y / ps), not to this block,
    // so overlapping requests evaluate identical nodes and produce identical pixels.
    const col0 = Math.round(grid.originX / ps) + x0;
    const row0 = Math.round(-grid.originY / ps) + y0;

    // 1. Projection nodes -> points on the sphere.
    const gCol0 = Math.floor(col0 / PROJ_STEP) * PROJ_STEP;
    const gRow0 = Math.floor(row0 / PROJ_STEP) * PROJ_STEP;
    const gpx = col0 - gCol0;
    const gpy = row0 - gRow0;
    const gnx = Math.floor((gpx + w - 1) / PROJ_STEP) + 2;
    const gny = Math.floor((gpy + h - 1) / PROJ_STEP) + 2;
    const { gx, gy, gz, climate } = this;
    for (let j = 0; j < gny; j++) {
      const Y = -(gRow0 + j * PROJ_STEP + 0.5) * ps;
      for (let i = 0; i < gnx; i++) {
        const X = (gCol0 + i * PROJ_STEP + 0.5) * ps;
        let [lon, lat] = this.proj.inverse(X, Y);
        if (!Number.isFinite(lon) || !Number.isFinite(lat)) {
          lon = 0;
          lat = 0;
        }
        if (lat > 90) lat = 90;
        if (lat < -90) lat = -90;
        const cl = Math.cos(lat * DEG);
        const k = j * gnx + i;
        gx[k] = R * cl * Math.cos(lon * DEG);
        gy[k] = R * cl * Math.sin(lon * DEG);
        gz[k] = R * Math.sin(lat * DEG);
        evalClimate(gx[k]!, gy[k]!, gz[k]!, climate, 3 * k);
      }
    }

    // 2. Macro fields on the finer node grid (points interpolated from the projection nodes).
    const fCol0 = Math.floor(col0 / step) * step;
    const fRow0 = Math.floor(row0 / step) * step;
    const fpx = col0 - fCol0;
    const fpy = row0 - fRow0;
    const fnx = Math.floor((fpx + w - 1) / step) + 2;
    const fny = Math.floor((fpy + h - 1) / step) + 2;
    const fields = this.fields;
    const minWl = 2 * grid.pixelMetres;
    for (let j = 0; j < fny; j++) {
      const gyf = (fRow0 - gRow0 + j * step) / PROJ_STEP;
      const gj = Math.min(Math.floor(gyf), gny - 2);
      const ty = gyf - gj;
      for (let i = 0; i < fnx; i++) {
        const gxf = (fCol0 - gCol0 + i * step) / PROJ_STEP;
        const gi = Math.min(Math.floor(gxf), gnx - 2);
        const tx = gxf - gi;
        const k00 = gj * gnx + gi;
        const k10 = k00 + 1;
        const k01 = k00 + gnx;
        const k11 = k01 + 1;
        const px = bilerp(gx[k00]!, gx[k10]!, gx[k01]!, gx[k11]!, tx, ty);
        const py = bilerp(gy[k00]!, gy[k10]!, gy[k01]!, gy[k11]!, tx, ty);
        const pz = bilerp(gz[k00]!, gz[k10]!, gz[k01]!, gz[k11]!, tx, ty);
        const c00 = 3 * k00,
          c10 = 3 * k10,
          c01 = 3 * k01,
          c11 = 3 * k11;
        const season = bilerp(climate[c00]!, climate[c10]!, climate[c01]!, climate[c11]!, tx, ty);
        const arid = bilerp(climate[c00 + 1]!, climate[c10 + 1]!, climate[c01 + 1]!, climate[c11 + 1]!, tx, ty);
        const bias = bilerp(climate[c00 + 2]!, climate[c10 + 2]!, climate[c01 + 2]!, climate[c11 + 2]!, tx, ty);
        evalFields(px, py, pz, minWl, season, arid, bias, fields, (j * fnx + i) * N_FIELDS);
      }
    }

    // 3. Per row: classify and mix spectra per pixel, interpolating points and fields along the row as it goes.
    const detail = clamp01((450 - grid.pixelMetres) / 350); // fields and blocks fade out when they become sub-pixel
    for (let r = 0; r < h; r++) {
      const m0 = maskOffset + r * maskStride;
      let rowAny = false;
      for (let c = 0; c < w; c++) {
        if (mask[m0 + c]) {
          rowAny = true;
          break;
        }
      }
      if (!rowAny) continue;
      this.shadeRow(gnx, gpy + r, gpx, fnx, step, fpy + r, fpx, w, mask, m0, target, target.offset + r * target.rowStride, detail);
    }
  }

  /**
   * One pixel row. Points on the sphere and macro fields are linear between the nodes along the row: per
   * node segment the row's left value and slope are computed once, and per pixel value = left + slope * t
   * (fields rounded to float32, as they are stored per node). gRowPos/fRowPos are the row's offsets from
   * the first projection/macro node row and gPhase/fPhase the first pixel's offsets from the first node
   * column, all in pixels. Each output sample is the endmember mix of the pixel's class, written directly.
   */
  private shadeRow(
    gnx: number,
    gRowPos: number,
    gPhase: number,
    fnx: number,
    step: number,
    fRowPos: number,
    fPhase: number,
    w: number,
    mask: Uint8Array,
    m0: number,
    target: RenderTarget,
    o0: number,
    detail: number,
  ): void {
    const { nOut, outKind, outScale, outMin, outMax, classA, classB, outBias } = this;
    const { bandsOnly, bandMax } = this;
    const { cropN, cropS, cropT, dryN, dryS, gx, gy, gz, fields } = this;
    const out = target.data;
    const gj = Math.floor(gRowPos / PROJ_STEP);
    const gty = (gRowPos - gj * PROJ_STEP) / PROJ_STEP;
    const fj = Math.floor(fRowPos / step);
    const fty = (fRowPos - fj * step) / step;
    // Current projection node segment: first column past it, its left node's block column, left values and slopes.
    let gEnd = -1,
      gBase = 0,
      xl = 0,
      yl = 0,
      zl = 0,
      dx = 0,
      dy = 0,
      dz = 0;
    // Current macro node segment, likewise for the fields.
    let fEnd = -1,
      fBase = 0,
      lWater = 0,
      dWater = 0,
      lRiver = 0,
      dRiver = 0,
      lLand = 0,
      dLand = 0,
      lUrban = 0,
      dUrban = 0,
      lVar = 0,
      dVar = 0,
      lSeason = 0,
      dSeason = 0,
      lArid = 0,
      dArid = 0;
    // Farm-region frame cache: fields are rectangles laid out in a per-region rotated local frame.
    let rix = 0x7fffffff,
      riy = 0,
      riz = 0;
    let regKey = 0;
    let ax = 0,
      ay = 0,
      az = 0,
      bx = 0,
      by = 0,
      bz = 0,
      invA = 1 / 300,
      invB = 1 / 200,
      regCrop = 0;
    // Consecutive pixels mostly fall into the same field row / field: cache their hashes.
    let lastIu = 0x7fffffff,
      stagger = 0,
      lastIv = 0x7fffffff,
      lastHf = 0;
    let standU = 0x7fffffff,
      standV = 0,
      stand = 0;
    for (let c = 0; c < w; c++) {
      if (!mask[m0 + c]) continue;
      if (c >= gEnd) {
        const i = Math.floor((c + gPhase) / PROJ_STEP);
        const a = gj * gnx + i;
        const b = a + 1;
        const a1 = a + gnx;
        const b1 = b + gnx;
        xl = gx[a]! + (gx[a1]! - gx[a]!) * gty;
        yl = gy[a]! + (gy[a1]! - gy[a]!) * gty;
        zl = gz[a]! + (gz[a1]! - gz[a]!) * gty;
        dx = (gx[b]! + (gx[b1]! - gx[b]!) * gty - xl) / PROJ_STEP;
        dy = (gy[b]! + (gy[b1]! - gy[b]!) * gty - yl) / PROJ_STEP;
        dz = (gz[b]! + (gz[b1]! - gz[b]!) * gty - zl) / PROJ_STEP;
        gBase = i * PROJ_STEP - gPhase;
        gEnd = gBase + PROJ_STEP;
      }
      if (c >= fEnd) {
        const i = Math.floor((c + fPhase) / step);
        const a = (fj * fnx + i) * N_FIELDS;
        const b = a + N_FIELDS;
        const a1 = a + fnx * N_FIELDS;
        const b1 = b + fnx * N_FIELDS;
        lWater = lerpNode(fields, a + F_WATER, a1 + F_WATER, fty);
        dWater = (lerpNode(fields, b + F_WATER, b1 + F_WATER, fty) - lWater) / step;
        lRiver = lerpNode(fields, a + F_RIVER, a1 + F_RIVER, fty);
        dRiver = (lerpNode(fields, b + F_RIVER, b1 + F_RIVER, fty) - lRiver) / step;
        lLand = lerpNode(fields, a + F_LAND, a1 + F_LAND, fty);
        dLand = (lerpNode(fields, b + F_LAND, b1 + F_LAND, fty) - lLand) / step;
        lUrban = lerpNode(fields, a + F_URBAN, a1 + F_URBAN, fty);
        dUrban = (lerpNode(fields, b + F_URBAN, b1 + F_URBAN, fty) - lUrban) / step;
        lVar = lerpNode(fields, a + F_VAR, a1 + F_VAR, fty);
        dVar = (lerpNode(fields, b + F_VAR, b1 + F_VAR, fty) - lVar) / step;
        lSeason = lerpNode(fields, a + F_SEASON, a1 + F_SEASON, fty);
        dSeason = (lerpNode(fields, b + F_SEASON, b1 + F_SEASON, fty) - lSeason) / step;
        lArid = lerpNode(fields, a + F_ARID, a1 + F_ARID, fty);
        dArid = (lerpNode(fields, b + F_ARID, b1 + F_ARID, fty) - lArid) / step;
        fBase = i * step - fPhase;
        fEnd = fBase + step;
      }
      const gt = c - gBase;
      const x = xl + dx * gt;
      const y = yl + dy * gt;
      const z = zl + dz * gt;
      const ft = c - fBase;
      const water = Math.fround(lWater + dWater * ft);
      const river = Math.fround(lRiver + dRiver * ft);
      const vari = Math.fround(lVar + dVar * ft);
      const arid = Math.fround(lArid + dArid * ft);

      let cls = CLASS_FARM;
      let wW = 0,
        wV = 0,
        wF = 0,
        wD = 0,
        wS = 0,
        wU = 0;
      let bright = 1 + 0.12 * vari;
      // Dry climates have fewer rivers (and fewer lakes, see evalFields).
      const riverW = 0.012 * (1 - arid);
      const lakeT = WATER_T;
      const absRiver = river < 0 ? -river : river;
      if (water < lakeT || absRiver < riverW) {
        // Deep water is dark; shallow margins and narrow rivers carry some sediment and weeds.
        const depth = water < lakeT ? clamp01((lakeT - water) / 0.06) : clamp01((riverW - absRiver) / riverW);
        cls = CLASS_WATER;
        wW = 0.8 + 0.2 * depth;
        wS = 0.12 * (1 - depth) + 0.03 * (1 + vari);
        wV = 0.08 * (1 - depth);
        bright = 1;
      } else {
        const land = Math.fround(lLand + dLand * ft);
        const urban = Math.fround(lUrban + dUrban * ft);
        const season = Math.fround(lSeason + dSeason * ft);
        const south = season < 0;
        const amp = south ? -season : season;
        // Region (~40 km cube cell) with its own field orientation and size.
        const rx = Math.floor(x * INV_REGION);
        const ry = Math.floor(y * INV_REGION);
        const rz = Math.floor(z * INV_REGION);
        if (rx !== rix || ry !== riy || rz !== riz) {
          rix = rx;
          riy = ry;
          riz = rz;
          const key = hash3u(rx, ry, rz, 0x51ed);
          regKey = key;
          let cx = (rx + 0.5) / INV_REGION;
          let cy = (ry + 0.5) / INV_REGION;
          let cz = (rz + 0.5) / INV_REGION;
          const n = Math.hypot(cx, cy, cz) || 1;
          cx /= n;
          cy /= n;
          cz /= n;
          // East/north at the region centre, rotated by a per-region angle.
          let ex = -cy,
            ey = cx;
          const en = Math.hypot(ex, ey) || 1;
          ex /= en;
          ey /= en;
          const nx = -cz * ey,
            ny = cz * ex,
            nz = cx * ey - cy * ex;
          const th = (key / 4294967296) * Math.PI;
          const ct = Math.cos(th),
            st = Math.sin(th);
          ax = ct * ex + st * nx;
          ay = ct * ey + st * ny;
          az = st * nz;
          bx = -st * ex + ct * nx;
          by = -st * ey + ct * ny;
          bz = ct * nz;
          invA = 1 / (180 + ((key >>> 8) & 255) * 1.6);
          invB = 1 / (120 + ((key >>> 16) & 255) * 1.0);
          regCrop = key >>> 24;
          lastIu = 0x7fffffff;
          lastIv = 0x7fffffff;
          standU = 0x7fffffff;
        }
        const u = x * ax + y * ay + z * az;
        const v = x * bx + y * by + z * bz;
        if (urban > URBAN_T) {
          // Town: blocks of buildings with streets between them and some gardens.
          const bu = u * (1 / 70);
          const iu = Math.floor(bu);
          const bv = v * (1 / 55) + hash3(iu, 7, 0, 0x77) * 0.6;
          const iv = Math.floor(bv);
          const fu = bu - iu;
          const fv = bv - iv;
          const street = fu < 0.12 || fv < 0.14;
          cls = CLASS_URBAN;
          const core = clamp01((urban - URBAN_T) / 0.08);
          if (street && detail > 0.5) {
            wU = 0.75;
            wV = 0.1 * core;
            wS = 0.1;
            bright = 0.85;
          } else {
            const hb = hash3u(iu, iv, 3, 0x5151 ^ regKey);
            const green = (hb & 255) < (0.25 * detail + 0.15 * (1 - core)) * 256;
            const g = (south ? cropS[8] : cropN[8])! * amp + cropT[8]! * (1 - amp);
            wU = green ? 0.15 : 0.85;
            wV = green ? 0.8 * g : 0.08;
            wS = green ? 0.8 * (1 - g) : 0.05;
            bright = (green ? 1 : 0.65 + 0.75 * ((hb >>> 8) & 255) * (1 / 255) * detail + 0.35 * (1 - detail)) * (1 + 0.05 * vari);
          }
        } else if (land > FOREST_T) {
          // Forest: evergreen and deciduous stands.
          cls = CLASS_FOREST;
          const iu = Math.floor(u * (1 / 350));
          const iv = Math.floor(v * (1 / 260));
          if (iu !== standU || iv !== standV) {
            standU = iu;
            standV = iv;
            stand = hash3(iu, iv, 11, 0xf0f0);
          }
          const decidShare = clamp01(0.5 + vari * 1.5 + (amp < 0.3 ? -1 : 0));
          const gs = south ? this.decidS : this.decidN;
          const g = stand < decidShare ? gs * amp + 0.85 * (1 - amp) : 0.88;
          // Canopy gaps (litter, soil) only at the forest margins.
          const gap = 0.12 * (1 - clamp01((land - FOREST_T) / 0.1));
          wF = g * (1 - gap);
          wD = (1 - g) * (1 - gap);
          wS = gap;
          bright = 1 + 0.1 * vari + 0.16 * (stand - 0.5) * detail;
        } else {
          // Farmland: staggered rectangular fields, each with its own crop and sowing date.
          const iu = Math.floor(u * invA);
          if (iu !== lastIu) {
            lastIu = iu;
            stagger = hash3(iu, regCrop, 1, 0xabc) * 3;
            lastIv = 0x7fffffff;
          }
          const iv = Math.floor(v * invB + stagger);
          if (iv !== lastIv) {
            lastIv = iv;
            lastHf = hash3u(iu, iv, regCrop, 0xf1e1d);
          }
          // Some fields are split in two along their long side.
          let hf = lastHf;
          if ((hf & 0x300) === 0 && u * invA - iu > 0.5) hf = Math.imul(hf ^ 0x5bd1e995, 0x27d4eb2d) >>> 0;
          // Pasture dominates near forests, crops elsewhere.
          const crop = land > FOREST_T - 0.12 && (hf & 4) !== 0 ? 2 : hf & 3;
          const ci = crop * N_VARIANTS + ((hf >>> 3) & 3);
          let g = (south ? cropS[ci]! : cropN[ci]!) * amp + cropT[ci]! * (1 - amp);
          const dry = south ? dryS[ci]! : dryN[ci]!;
          // Sub-pixel fields: use the average farmland instead of aliasing into speckle.
          g = g * detail + 0.42 * (1 - detail);
          wV = g;
          wD = (1 - g) * dry;
          wS = (1 - g) * (1 - dry);
          bright = 1 + 0.08 * vari + (((hf >>> 5) & 255) * (1 / 255) - 0.5) * 0.35 * detail;
        }
        if (arid > 0) {
          // Dry climates: less green, brighter sandy soil.
          const moved = (wV + wF) * arid;
          wV *= 1 - arid;
          wF *= 1 - arid;
          wS += moved * 0.6;
          wD += moved * 0.4;
          bright *= 1 + 0.45 * arid * (wS + wD);
        }
      }

      // Each class has at most four endmembers of non-zero weight (the others would only add exact zeros):
      // the class's table lists them in endmember order, so the sums are those over all endmembers.
      const q0 = bright * (cls === CLASS_FOREST ? wF : cls === CLASS_WATER ? wW : wV);
      const q1 = bright * (cls === CLASS_WATER ? wV : wD);
      const q2 = bright * wS;
      const q3 = bright * wU;
      const t = cls * nOut * 4;
      if (bandsOnly && cls !== CLASS_URBAN) {
        // Reflectance bands only (the common request): one formula, the same range for every band; a
        // class other than towns has three endmembers (q3 is 0).
        for (let ob = 0, o = o0 + c * nOut, k = t; ob < nOut; ob++, o++, k += 4) {
          const val = (q0 * classA[k]! + q1 * classA[k + 1]! + q2 * classA[k + 2]! + 0.5) | 0;
          out[o] = val < 1 ? 1 : val > bandMax ? bandMax : val;
        }
        continue;
      }
      if (bandsOnly) {
        for (let ob = 0, o = o0 + c * nOut, k = t; ob < nOut; ob++, o++, k += 4) {
          const val = (q0 * classA[k]! + q1 * classA[k + 1]! + q2 * classA[k + 2]! + q3 * classA[k + 3]! + 0.5) | 0;
          out[o] = val < 1 ? 1 : val > bandMax ? bandMax : val;
        }
        continue;
      }
      for (let ob = 0, o = o0 + c * nOut, k = t; ob < nOut; ob++, o++, k += 4) {
        let val: number;
        if (outKind[ob] === 0) {
          val = (q0 * classA[k]! + q1 * classA[k + 1]! + q2 * classA[k + 2]! + q3 * classA[k + 3]! + 0.5) | 0;
        } else {
          const ra = q0 * classA[k]! + q1 * classA[k + 1]! + q2 * classA[k + 2]! + q3 * classA[k + 3]!;
          const rb = q0 * classB[k]! + q1 * classB[k + 1]! + q2 * classB[k + 2]! + q3 * classB[k + 3]!;
          const sum = ra + rb;
          const idx = sum > 0 ? (ra - rb) / sum : 0;
          val = ((idx * outScale[ob]! + outBias[ob]!) | 0) - 65536;
        }
        const lo = outMin[ob]!;
        const hi = outMax[ob]!;
        out[o] = val < lo ? lo : val > hi ? hi : val;
      }
    }
  }
}

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

/** Value at fraction t from node i to node i1 (one node row down). */
function lerpNode(v: Float32Array, i: number, i1: number, t: number): number {
  return v[i]! + (v[i1]! - v[i]!) * t;
}

function bilerp(a00: number, a10: number, a01: number, a11: number, tx: number, ty: number): number {
  const top = a00 + (a10 - a00) * tx;
  const bot = a01 + (a11 - a01) * tx;
  return top + (bot - top) * ty;
}

/** Continental-scale climate at a point: signed seasonal amplitude, aridity and the lake-density bias of the water field. */
function evalClimate(x: number, y: number, z: number, out: Float64Array, at: number): void {
  const sinLat = z / R;
  const absLat = Math.asin(Math.min(1, Math.abs(sinLat))) / DEG;
  const amp = clamp01((absLat - 6) / 18);
  out[at] = sinLat < 0 ? -amp : amp;
  // Subtropical dry belts (~15-35 deg), broken up by continental-scale noise.
  const belt = Math.exp(-((absLat - 25) * (absLat - 25)) / 120);
  const n = fbm3(x, y, z, 900000, 2, 0x6006);
  const arid = clamp01(belt * (0.55 + 1.4 * n) - 0.03); // exactly 0 away from the dry belts
  out[at + 1] = arid;
  // Lakes cluster in "lake districts" and avoid dry climates.
  const district = fbm3(x, y, z, 400000, 2, 0x7007);
  out[at + 2] = 0.12 - 0.3 * (district > 0 ? district : 0) + 0.3 * arid;
}

/** Landscape-scale fields at a macro node; season, aridity and lake bias come interpolated from the climate nodes. */
function evalFields(
  x: number,
  y: number,
  z: number,
  minWl: number,
  season: number,
  arid: number,
  lakeBias: number,
  out: Float32Array,
  at: number,
): void {
  out[at + F_RIVER] = fbm3(x, y, z, 9000, 2, 0x2002, minWl);
  out[at + F_LAND] = fbm3(x, y, z, 7000, 3, 0x3003, minWl);
  out[at + F_URBAN] = fbm3(x, y, z, 6000, 2, 0x4004, minWl);
  out[at + F_VAR] = fbm3(x, y, z, 1400, 2, 0x5005, minWl);
  out[at + F_SEASON] = season;
  out[at + F_ARID] = arid;
  out[at + F_WATER] = fbm3(x, y, z, 16000, 4, 0x1001, minWl) + lakeBias;
}
