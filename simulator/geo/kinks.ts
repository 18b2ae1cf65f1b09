/**
 * The first crossing `turf.kinks` would report, found through a uniform grid of segment boxes
 * instead of testing all pairs. Same enumeration order,
 * same skip rules and the same intersection arithmetic as turf's kinks, so the verdicts and the
 * reported point are the same: for line pairs (l1, l2) in order, segment i of l1 ascending, then
 * the smallest k >= i of l2.
 */
import type { Position } from 'geojson';

/** turf's lineIntersects: the crossing point of two segments, or null (parallel segments never cross). */
function crossing(x1: number, y1: number, x2: number, y2: number, x3: number, y3: number, x4: number, y4: number): Position | null {
  const den = (y4 - y3) * (x2 - x1) - (x4 - x3) * (y2 - y1);
  if (den === 0) return null;
  const a0 = y1 - y3;
  const b0 = x1 - x3;
  const a = ((x4 - x3) * a0 - (y4 - y3) * b0) / den;
  const b = ((x2 - x1) * a0 - (y2 - y1) * b0) / den;
  if (a >= 0 && a <= 1 && b >= 0 && b <= 1) return [x1 + a * (x2 - x1), y1 + a * (y2 - y1)];
  return null;
}

/** Segments of one line bucketed by grid cell; boxes are padded so rounding at touching ends is never missed. */
class SegmentGrid {
  private readonly cells = new Map<number, number[]>();
  private readonly minX: number;
  private readonly minY: number;
  private readonly size: number;
  private readonly cols: number;
  private readonly pad: number;

  constructor(private readonly line: Position[], bounds: [number, number, number, number]) {
    const [minX, minY, maxX, maxY] = bounds;
    const span = Math.max(maxX - minX, maxY - minY, 1e-12);
    const perSide = Math.max(1, Math.min(4096, Math.ceil(Math.sqrt(line.length))));
    this.minX = minX;
    this.minY = minY;
    this.size = span / perSide;
    this.cols = perSide + 1;
    this.pad = span * 1e-9;
    for (let k = 0; k + 1 < line.length; k++) {
      this.visit(k, (cell) => {
        const list = this.cells.get(cell);
        if (list) list.push(k);
        else this.cells.set(cell, [k]);
      });
    }
  }

  private clampCell(v: number, min: number): number {
    return Math.max(0, Math.min(this.cols - 1, Math.floor((v - min) / this.size)));
  }

  /** Calls `fn` with every cell the padded box of segment k of `pts` covers. */
  visit(k: number, fn: (cell: number) => void, pts: Position[] = this.line): void {
    const [ax, ay] = pts[k]! as [number, number];
    const [bx, by] = pts[k + 1]! as [number, number];
    const c0 = this.clampCell(Math.min(ax, bx) - this.pad, this.minX);
    const c1 = this.clampCell(Math.max(ax, bx) + this.pad, this.minX);
    const r0 = this.clampCell(Math.min(ay, by) - this.pad, this.minY);
    const r1 = this.clampCell(Math.max(ay, by) + this.pad, this.minY);
    for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) fn(r * this.cols + c);
  }

  /** Segments of this grid's line whose cells segment i of `pts` shares, ascending. */
  candidates(pts: Position[], i: number): number[] {
    const seen = new Set<number>();
    this.visit(i, (cell) => {
      for (const k of this.cells.get(cell) ?? []) seen.add(k);
    }, pts);
    return [...seen].sort((p, q) => p - q);
  }
}

function boundsOf(lines: Position[][]): [number, number, number, number] {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const line of lines) {
    for (const p of line) {
      minX = Math.min(minX, p[0]!); maxX = Math.max(maxX, p[0]!);
      minY = Math.min(minY, p[1]!); maxY = Math.max(maxY, p[1]!);
    }
  }
  return [minX, minY, maxX, maxY];
}

/** `turf.kinks(multiLineString(lines)).features[0]?.geometry.coordinates` (a single line: lineString), without all-pairs testing. */
export function firstKink(lines: Position[][]): Position | null {
  const bounds = boundsOf(lines);
  const grids = lines.map((l) => new SegmentGrid(l, bounds));
  for (const line1 of lines) {
    for (let l2 = 0; l2 < lines.length; l2++) {
      const line2 = lines[l2]!;
      const same = line1 === line2;
      const closed = line1.length > 0 && line1[0]![0] === line1[line1.length - 1]![0] && line1[0]![1] === line1[line1.length - 1]![1];
      for (let i = 0; i < line1.length - 1; i++) {
        for (const k of grids[l2]!.candidates(line1, i)) {
          if (k < i) continue;
          if (same && (Math.abs(i - k) === 1 || (i === 0 && k === line1.length - 2 && closed))) continue;
          const p = crossing(line1[i]![0]!, line1[i]![1]!, line1[i + 1]![0]!, line1[i + 1]![1]!, line2[k]![0]!, line2[k]![1]!, line2[k + 1]![0]!, line2[k + 1]![1]!);
          if (p) return p;
        }
      }
    }
  }
  return null;
}
