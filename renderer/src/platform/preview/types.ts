import type { RequestOf, ResponseOf, Result } from '../../../../preload/contract';
import type { Channel, BandMeta, DisplaySettings } from '../raster/display';
import type { Histogram } from '../raster/histogram';
import type { ProjectionInfo } from '../raster/projection';
import type { QuickLook } from '../raster/quicklook';
import type { RasterFile, RasterHeader, RasterSample } from '../raster/raster-data';

/** Preview status of a layer. */
export type PreviewStatus = 'preparing' | 'building' | 'loading' | 'ready' | 'error';

/** One raster open on the map, as the panels see it. */
export interface PreviewLayer {
  /** Layer key: the library id of the raster shown. */
  key: string;
  entryId: string;
  title: string;
  date: string | null;
  status: PreviewStatus;
  /** Overview build progress 0..1 while status is 'building'. */
  progress: number | null;
  /** Why the layer failed, when status is 'error'. */
  message: string | null;
  /** How the raster is read (directly, or through a cached overview copy), and projection caveats. */
  note: string | null;
  rasterId: string | null;
  epsg: number | null;
  projectionName: string | null;
  bands: BandMeta[];
  display: DisplaySettings;
  channels: Channel[];
  /** Why the display cannot be drawn (a bad expression), or null. */
  displayError: string | null;
  histograms: Histogram[];
  /** Display range [lo, hi] per channel, in physical units. */
  ranges: [number, number][];
  opacity: number;
  visible: boolean;
  /**
   * ms from "open" to: the first full frame of the view (the quick look, or the layer itself),
   * the WebGL layer in place (status 'ready'), and its first complete frame.
   */
  timing: {
    firstFrameMs: number | null;
    readyMs: number | null;
    renderedMs: number | null;
    /** Ms from the open to each step of the first frame (answered, opened, placed, sampled, warped, coloured): where its time goes. */
    steps: Record<string, number>;
  };
}

/** What the pixel inspector shows for the point under the pointer. */
export interface InspectorReading {
  layerKey: string;
  title: string;
  lonLat: [number, number];
  crs: string;
  crsCoordinate: [number, number];
  /** Column and row (0-based) of the full-resolution pixel. */
  pixel: [number, number] | null;
  values: { band: string; dn: number; value: number | null }[];
  indices: { name: string; value: number | null }[];
  pinned: boolean;
  outside: boolean;
}

/** How main says a library raster is previewed (and whether its overview copy is built). */
export type PreviewAnswer = ResponseOf<'library:preview'>;

/** Asks main how a library raster is previewed: a store's bridge call, handed to the engine (only stores call the bridge). */
export type AskPreview = (request: RequestOf<'library:preview'>, signal?: AbortSignal) => Promise<Result<PreviewAnswer>>;

/** The renderer-side state of a layer on the map: its file, stretch sample and quick look. */
export interface LayerRuntime {
  /** File bands a warped layer's tiles carry (see raster-warp-source.ts), or null when the source has every band. */
  slots: number[] | null;
  file: RasterFile;
  header: RasterHeader;
  sample: RasterSample | null;
  histograms: Map<string, Histogram>;
  projection: ProjectionInfo;
  /** The quick look shown until the WebGL layer has its tiles (see raster/quicklook.ts). */
  quick: QuickLook | null;
}

/** Options of opening a raster on the map. */
export interface OpenOptions {
  zoom?: boolean;
  display?: DisplaySettings;
  /** Position in the layer stack (0 = top). */
  at?: number;
  opacity?: number;
  visible?: boolean;
}
