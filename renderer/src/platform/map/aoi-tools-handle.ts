/**
 * The installed AOI tools, for the toolbar, dialogs and shortcuts. The tools themselves
 * (aoi-tools.ts: OpenLayers' draw, modify and snap interactions) load after the map's first frame,
 * so this handle is all the first paint carries; before then {@link aoiTools} is null and the
 * callers' buttons do nothing.
 */

/** What the toolbar and shortcuts call. */
export interface AoiTools {
  drawPolygon(): void;
  drawRectangle(): void;
  cancel(): void;
  removeLastPoint(): void;
  /**
   * Keyboard drawing: adds a polygon vertex at `coordinate` (map projection) while the polygon tool
   * draws; the same spot as the last vertex (a second Enter without moving), or `finish`, closes the
   * polygon once it has three. False when the polygon tool is not drawing.
   */
  keyVertex(coordinate: number[], finish?: boolean): boolean;
  setEditing(on: boolean): void;
  zoomToAoi(): void;
  dispose(): void;
}

let controller: AoiTools | null = null;

/** The installed tools, or null before the map has them. */
export function aoiTools(): AoiTools | null {
  return controller;
}

/** Called by aoi-tools.ts when it installs (`tools`) or disposes (null) its tools. */
export function setAoiTools(tools: AoiTools | null): void {
  controller = tools;
}
