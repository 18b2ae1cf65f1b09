import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import {
  aoiProblems, areaKm2 as geodesicAreaKm2, bbox, closeRings as closeAllRings, isPolygonal, parseAoiText, roundGeometry, toWkt, utmEpsgFor,
  vertexCount as countVertices, type AnyGeometry, type AoiProblem, type PolygonalGeometry,
} from '../lib/geometry';
import { useSessionStore } from './session';

/** How the AOI is sent to the service: as WKT text or as a GeoJSON geometry, never both. */
export type AoiMode = 'Wkt' | 'GeoJson';

/** How each mode is written for the analyst (the formats' own names). */
export const AOI_MODE_LABELS: Readonly<Record<AoiMode, string>> = { Wkt: 'WKT', GeoJson: 'GeoJSON' };

/** Where the current AOI came from. */
export type AoiSource = 'polygon' | 'rectangle' | 'edit' | 'paste' | 'file' | 'api';

/** The AOI part of a request: exactly one of Wkt or GeoJson. */
export type AoiRequest = { Wkt: string } | { GeoJson: PolygonalGeometry };

export type { AoiProblem, PolygonalGeometry, AnyGeometry };

/** Where the window keeps the AOI between sessions, as it keeps the map view (MapView's `swath.view`). */
const AOI_KEY = 'swath.aoi';
/** A kept AOI larger than this is not kept (and not read back): localStorage is small and read at start. */
const AOI_KEEP_MAX_CHARS = 1_000_000;

interface KeptAoi {
  geometry: string;
  source: AoiSource | null;
  label: string | null;
  mode: AoiMode;
}

const SOURCES: readonly AoiSource[] = ['polygon', 'rectangle', 'edit', 'paste', 'file', 'api'];

/** The AOI kept by an earlier session, read as any pasted text is (a broken or foreign value is ignored). */
function keptAoi(): { geometry: AnyGeometry; source: AoiSource | null; label: string | null; mode: AoiMode } | null {
  try {
    const raw = localStorage.getItem(AOI_KEY);
    if (!raw || raw.length > AOI_KEEP_MAX_CHARS) return null;
    const kept = JSON.parse(raw) as Partial<KeptAoi> | null;
    if (!kept || typeof kept.geometry !== 'string') return null;
    const parsed = parseAoiText(kept.geometry);
    if (!parsed.ok) return null;
    return {
      geometry: parsed.geometry,
      source: SOURCES.includes(kept.source as AoiSource) ? kept.source! : null,
      label: typeof kept.label === 'string' ? kept.label.slice(0, 200) : null,
      mode: kept.mode === 'GeoJson' ? 'GeoJson' : 'Wkt',
    };
  } catch {
    return null;
  }
}

/** Keeps the AOI for the next session (or forgets it); a full or refused storage only means it is not kept. */
function keepAoi(value: KeptAoi | null): void {
  try {
    if (!value) localStorage.removeItem(AOI_KEY);
    else {
      const text = JSON.stringify(value);
      if (text.length <= AOI_KEEP_MAX_CHARS) localStorage.setItem(AOI_KEY, text);
      else localStorage.removeItem(AOI_KEY);
    }
  } catch {
    // Not kept: the AOI stays for this session.
  }
}

/**
 * THE area of interest, shared by every panel (imagery, products, tasking).
 *
 * - `geometry`: GeoJSON geometry in EPSG:4326 (lon/lat), or null. An import that
 *   is not a polygon is kept (so it is visible) but reported as a problem.
 * - `areaKm2`, `vertexCount`, `utmEpsg`, `bbox`: derived figures.
 * - `problems`: named validation problems; `valid` (no errors) gates every
 *   request, `compositeReady` also respects the account's MaxCompositeAreaKm2.
 * - `mode`: 'Wkt' | 'GeoJson', chosen by the analyst; `toRequest()` returns
 *   exactly `{ Wkt }` or `{ GeoJson }` accordingly.
 * - `revision` increases on every change, so dependants can mark results stale.
 * - The AOI (with its label, source and mode) is kept in the window's storage and comes back on a
 *   reload, as the map view does.
 */
export const useAoiStore = defineStore('aoi', () => {
  const session = useSessionStore();
  const geometry = ref<AnyGeometry | null>(null);
  const source = ref<AoiSource | null>(null);
  const label = ref<string | null>(null);
  const mode = ref<AoiMode>('Wkt');
  const revision = ref(0);
  /** Why the last import was refused (parse errors); problems of an accepted geometry are in `problems`. */
  const importError = ref<string | null>(null);

  const polygonal = computed<PolygonalGeometry | null>(() => (isPolygonal(geometry.value) ? geometry.value : null));
  const problems = computed<AoiProblem[]>(() =>
    geometry.value ? aoiProblems(geometry.value, { maxAreaKm2: session.maxCompositeAreaKm2 }) : [],
  );
  const valid = computed(() => !!polygonal.value && !problems.value.some((p) => p.severity === 'error'));
  const compositeReady = computed(() => valid.value && problems.value.length === 0);
  const areaKm2 = computed(() => (valid.value ? geodesicAreaKm2(polygonal.value!) : null));
  const vertexCount = computed(() => countVertices(geometry.value));
  const utmEpsg = computed(() => (valid.value ? utmEpsgFor(polygonal.value!) : null));
  const extent = computed(() => (polygonal.value ? bbox(polygonal.value) : null));
  const wkt = computed(() => (valid.value ? toWkt(polygonal.value!) : null));

  /** Replaces the AOI with a geometry (EPSG:4326); polygonal geometries are rounded to 7 decimals. */
  function setGeometry(g: AnyGeometry | null, from: AoiSource = 'api', name: string | null = null): void {
    geometry.value = g && isPolygonal(g) ? roundGeometry(g) : g;
    source.value = g ? from : null;
    label.value = name;
    importError.value = null;
    revision.value++;
    keep();
  }

  function keep(): void {
    keepAoi(geometry.value ? { geometry: JSON.stringify(geometry.value), source: source.value, label: label.value, mode: mode.value } : null);
  }

  const kept = keptAoi();
  if (kept) {
    geometry.value = kept.geometry;
    source.value = kept.source;
    label.value = kept.label;
    mode.value = kept.mode;
    revision.value++;
  }

  /**
   * Imports pasted or opened text (WKT or GeoJSON; Feature/FeatureCollection unwrapped). A refusal is
   * kept in `importError` (shown under the AOI) unless `report` is false: the import dialog shows its
   * own, and cancelling it leaves nothing behind.
   */
  function importText(text: string, from: AoiSource = 'paste', name: string | null = null, report = true): { ok: true } | { ok: false; message: string } {
    const parsed = parseAoiText(text);
    if (!parsed.ok) {
      if (report) importError.value = parsed.message;
      return parsed;
    }
    // The analyst's own encoding is the natural default for sending it back.
    mode.value = parsed.format;
    setGeometry(parsed.geometry, from, name);
    return { ok: true };
  }

  /** Imports a .geojson, .json or .wkt file (`report` as for importText). */
  async function importFile(file: File, report = true): Promise<{ ok: true } | { ok: false; message: string }> {
    const refuse = (message: string) => {
      if (report) importError.value = message;
      return { ok: false as const, message };
    };
    if (!/\.(geo)?json$|\.wkt$|\.txt$/i.test(file.name)) return refuse(`"${file.name}" is not a .geojson, .json or .wkt file.`);
    if (file.size > 20 * 1024 * 1024) return refuse(`"${file.name}" is ${Math.round(file.size / 1e6)} MB; an AOI file should be far smaller.`);
    return importText(await file.text(), 'file', file.name, report);
  }

  /** Closes every unclosed ring (the fix offered for "unclosed ring"). */
  function closeRings(): void {
    if (polygonal.value) setGeometry(closeAllRings(polygonal.value), source.value ?? 'api', label.value);
  }

  function clear(): void {
    setGeometry(null);
  }

  function setMode(m: AoiMode): void {
    mode.value = m;
    keep();
  }

  /** The AOI as the request's area: `{ Wkt }` or `{ GeoJson }` per `mode`, never both; throws when there is no valid AOI. */
  function toRequest(): AoiRequest {
    if (!valid.value || !polygonal.value) {
      throw new Error(problems.value[0]?.message ?? 'Draw or import an area of interest first.');
    }
    return mode.value === 'Wkt' ? { Wkt: toWkt(polygonal.value) } : { GeoJson: closeAllRings(polygonal.value) };
  }

  /** The AOI as text in either encoding (for copy/export); null without a polygonal AOI. */
  function exportText(as: AoiMode): string | null {
    if (!polygonal.value) return null;
    return as === 'Wkt' ? toWkt(polygonal.value) : JSON.stringify(polygonal.value);
  }

  return {
    geometry, source, label, mode, revision, importError,
    polygonal, problems, valid, compositeReady, areaKm2, vertexCount, utmEpsg, extent, wkt,
    setGeometry, importText, importFile, closeRings, clear, setMode, toRequest, exportText,
  };
});
