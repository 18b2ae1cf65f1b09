import { defineStore } from 'pinia';
import { computed, reactive, ref, watch } from 'vue';
import { parseBandnames } from '../../../../../common/bandnames';
import type { IpcError, ResponseOf, Result } from '../../../../../preload/contract';
import { addDaysUtc, todayUtc } from '../../../platform/lib/format';
import { isUtmEpsg } from '../../../platform/lib/geometry';
import { extractDatedGeographies, findGeometry, findGuid, findKey, findRows, type DatedGeography, type JsonObject } from '../../../platform/lib/recognise';
import { createRequest } from '../../../platform/request';
import { useAoiStore } from '../../../platform/stores/aoi';
import { useDownloadsStore } from '../../downloads';
import { useModelsStore } from '../../../platform/stores/models';
import { useOperationsStore } from '../../../platform/stores/operations';
import { useSessionStore } from '../../../platform/stores/session';
import { useTeamStore, type TeamCheck } from '../../team';

/** Output resolutions the contract allows, in metres. */
export const RESOLUTIONS = [10, 20, 40, 80, 160, 320, 640, 1280] as const;
/** UtmDataSelectionMode values of the contract. */
export const UTM_MODES = ['single_utm_fully_covered', 'combined_utm', 'single_utm'] as const;
/** At most this many picked tiles are checked against the team catalog at once (one `team:check` each). */
export const TILE_TEAM_MAX = 200;

/** The ONE settings object of steps 2-4 (check, estimate, download): the three calls cannot drift apart. */
export interface CompositeSettings {
  Date: string;
  Model: string;
  SatelliteConstellations: string[];
  Resolution: number;
  EpsgProjection: number | null;
  FileType: string;
  PixelSelectionMode: 'intersect' | 'contained';
  DataType: 'INT16' | 'UINT8';
  UtmDataSelectionMode: (typeof UTM_MODES)[number];
  UtmGridForcePixelResolutionSize: boolean;
  Bandnames: string;
  OldPixelSelectionMode: boolean;
  AllowPartialImage: boolean;
  AutomaticOrderCreation: boolean;
  UploadUrl: string;
}

function defaults(): CompositeSettings {
  return {
    Date: '',
    Model: '',
    SatelliteConstellations: [],
    Resolution: 10,
    EpsgProjection: null,
    FileType: 'tif',
    PixelSelectionMode: 'intersect',
    DataType: 'INT16',
    UtmDataSelectionMode: 'combined_utm',
    UtmGridForcePixelResolutionSize: false,
    Bandnames: 'rgb',
    OldPixelSelectionMode: false,
    AllowPartialImage: false,
    AutomaticOrderCreation: false,
    UploadUrl: '',
  };
}

type Data = { data: unknown };

/** One tile or mini-tile of a tile search, with its GUID and footprint found in its fields. */
export interface TileItem {
  id: string;
  row: JsonObject;
  geometry: unknown;
  mini: boolean;
}

/**
 * The imagery workflow: search dates over the AOI, pick a date, then check,
 * estimate and download a composite with one shared settings object. A check
 * or estimate made with other settings (or another AOI) is marked stale.
 * Tile and mini-tile downloads take GUIDs picked from a tile search; the
 * deprecated geography/composite is reachable under "legacy".
 */
export const useImageryStore = defineStore('imagery', () => {
  const aoi = useAoiStore();
  const session = useSessionStore();
  const models = useModelsStore();
  const operations = useOperationsStore();
  const downloads = useDownloadsStore();

  // ---------------------------------------------------------------- search
  const search = reactive({ from: addDaysUtc(todayUtc(), -90), until: todayUtc(), model: '', constellations: [] as string[] });
  const searchReq = createRequest<Data>({ cancelsInMain: true });
  const searchedKey = ref<string | null>(null);
  const hoverDate = ref<string | null>(null);
  const hoverGeography = ref<string | null>(null);

  const searchErrors = computed<Record<string, string[]>>(() => {
    const e: Record<string, string[]> = {};
    if (!aoi.geometry) e[aoiField()] = ['Draw or import an area of interest on the map first.'];
    else if (!aoi.valid) e[aoiField()] = aoi.problems.filter((p) => p.severity === 'error').map((p) => p.message);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(search.from)) e.From = ['From is required (YYYY-MM-DD, UTC).'];
    if (search.until && !/^\d{4}-\d{2}-\d{2}$/.test(search.until)) e.Until = ['Until must be a date (YYYY-MM-DD, UTC).'];
    if (!e.From && search.until && search.from > search.until) e.Until = ['Until must not be before From.'];
    return e;
  });

  function aoiField(): 'Wkt' | 'GeoJson' {
    return aoi.mode;
  }

  function searchBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { ...aoi.toRequest(), From: `${search.from}T00:00:00Z`, Until: search.until ? `${search.until}T23:59:59Z` : null };
    if (search.model) body.Model = search.model;
    if (search.constellations.length) body.SatelliteConstellations = [...search.constellations];
    return body;
  }

  const searchKey = computed(() => (aoi.valid ? JSON.stringify({ aoi: aoi.wkt, from: search.from, until: search.until, m: search.model, c: search.constellations }) : null));
  const searchStale = computed(() => !!searchReq.data && searchedKey.value !== searchKey.value);

  async function runSearch(): Promise<Result<Data> | null> {
    if (Object.keys(searchErrors.value).length) return null;
    const body = searchBody();
    const key = searchKey.value;
    const r = await searchReq.run((bridge) => bridge.imagerySearch({ request: body }));
    if (r.ok) {
      searchedKey.value = key;
      const dates = availableDates.value;
      if (dates.length && (!settings.Date || !dates.includes(settings.Date))) pickDate(dates[dates.length - 1]!);
    }
    return r;
  }

  const geographies = computed<DatedGeography[]>(() => (searchReq.data ? extractDatedGeographies(searchReq.data.data) : []));
  const dateIndex = computed(() => {
    const m = new Map<string, DatedGeography[]>();
    for (const g of geographies.value) for (const d of g.dates) m.set(d, [...(m.get(d) ?? []), g]);
    return m;
  });
  const availableDates = computed(() => [...dateIndex.value.keys()].sort());

  /** Picks a date for check/estimate/download; the model and constellations of its first result come along. */
  function pickDate(date: string, geographyId?: string): void {
    settings.Date = date;
    const g = (geographyId && geographies.value.find((x) => x.id === geographyId)) || dateIndex.value.get(date)?.[0];
    if (g?.model && (models.names.length === 0 || models.names.includes(g.model))) {
      settings.Model = g.model;
      settings.SatelliteConstellations = models.names.length ? models.normalise(g.model, g.constellations) : [...g.constellations];
    }
  }

  function stepDate(delta: 1 | -1): void {
    const dates = availableDates.value;
    if (!dates.length) return;
    const i = dates.indexOf(settings.Date);
    const next = i < 0 ? (delta > 0 ? 0 : dates.length - 1) : Math.max(0, Math.min(dates.length - 1, i + delta));
    pickDate(dates[next]!);
  }

  // -------------------------------------------------------------- settings
  const settings = reactive<CompositeSettings>(defaults());
  /** The EPSG follows the AOI's UTM zone until the analyst picks another. */
  const epsgFollowsAoi = ref(true);

  watch(
    () => aoi.utmEpsg,
    (utm) => {
      if (epsgFollowsAoi.value) settings.EpsgProjection = utm ?? settings.EpsgProjection;
    },
    { immediate: true },
  );

  watch(
    () => models.names,
    (names) => {
      if (!names.length) return;
      if (!names.includes(settings.Model)) settings.Model = names[0]!;
      settings.SatelliteConstellations = models.normalise(settings.Model, settings.SatelliteConstellations);
    },
    { immediate: true },
  );

  function setModel(model: string): void {
    settings.Model = model;
    settings.SatelliteConstellations = models.normalise(model, settings.SatelliteConstellations);
  }

  /** Toggles an optional constellation; required ones stay on. */
  function toggleConstellation(name: string, on: boolean): void {
    const required = models.constellationsFor(settings.Model).find((c) => c.name === name && !c.optional);
    if (required) return;
    const set = new Set(settings.SatelliteConstellations);
    if (on) set.add(name);
    else set.delete(name);
    settings.SatelliteConstellations = models.normalise(settings.Model, [...set]);
  }

  function setEpsg(code: number | null, follow = false): void {
    epsgFollowsAoi.value = follow;
    settings.EpsgProjection = follow ? aoi.utmEpsg ?? code : code;
  }

  const utmEnabled = computed(() => isUtmEpsg(settings.EpsgProjection));
  const bands = computed(() => parseBandnames(settings.Bandnames));

  /** Client-side checks of the shared settings, as {field: [reasons]}. */
  const settingsErrors = computed<Record<string, string[]>>(() => {
    const e: Record<string, string[]> = {};
    const add = (k: string, r: string) => (e[k] ??= []).push(r);
    if (!aoi.geometry) add(aoiField(), 'Draw or import an area of interest on the map first.');
    else for (const p of aoi.problems) add(aoiField(), p.message);
    if (!settings.Date) add('Date', 'Pick a date (search dates first, or type one).');
    else if (!/^\d{4}-\d{2}-\d{2}$/.test(settings.Date)) add('Date', 'Date must be YYYY-MM-DD (UTC).');
    if (!settings.Model) add('Model', 'Choose a model.');
    if (!RESOLUTIONS.includes(settings.Resolution as never)) add('Resolution', `Resolution must be one of ${RESOLUTIONS.join(', ')} m.`);
    if (settings.EpsgProjection !== null && (!Number.isInteger(settings.EpsgProjection) || settings.EpsgProjection <= 0)) {
      add('EpsgProjection', 'EPSG must be a positive whole number, e.g. 4326, 3857 or 32633.');
    }
    if (!settings.FileType.trim()) add('FileType', 'FileType is required (tif).');
    const b = bands.value;
    if (!b.ok) add('Bandnames', b.reason);
    else if (session.maxTotalBands != null && b.bands.length > session.maxTotalBands) {
      add('Bandnames', `${b.bands.length} output bands exceed the account's max total bands (${session.maxTotalBands}).`);
    }
    if (settings.UploadUrl.trim() && !/^https?:\/\/[^\s]+$/i.test(settings.UploadUrl.trim())) add('UploadUrl', 'UploadUrl must be an absolute http(s) URL, or empty to download the file.');
    return e;
  });
  const settingsValid = computed(() => Object.keys(settingsErrors.value).length === 0);

  /** The composite request all three steps send (null while the settings have errors). */
  const compositeRequest = computed<Record<string, unknown> | null>(() => {
    if (!settingsValid.value) return null;
    const body: Record<string, unknown> = {
      ...aoi.toRequest(),
      Date: settings.Date,
      Model: settings.Model,
      SatelliteConstellations: [...settings.SatelliteConstellations],
      Resolution: settings.Resolution,
      ...(settings.EpsgProjection !== null ? { EpsgProjection: settings.EpsgProjection } : {}),
      FileType: settings.FileType.trim(),
      PixelSelectionMode: settings.PixelSelectionMode,
      DataType: settings.DataType,
      Bandnames: settings.Bandnames.trim(),
      OldPixelSelectionMode: settings.OldPixelSelectionMode,
      AllowPartialImage: settings.AllowPartialImage,
      AutomaticOrderCreation: settings.AutomaticOrderCreation,
    };
    // These only mean something for UTM output; outside it they are left out rather than sent ignored.
    if (utmEnabled.value) {
      body.UtmDataSelectionMode = settings.UtmDataSelectionMode;
      body.UtmGridForcePixelResolutionSize = settings.UtmGridForcePixelResolutionSize;
    }
    if (settings.UploadUrl.trim()) body.UploadUrl = settings.UploadUrl.trim();
    return body;
  });
  const requestKey = computed(() => (compositeRequest.value ? JSON.stringify(compositeRequest.value) : null));

  // ------------------------------------------------- check, estimate, download
  const checkReq = createRequest<Data>({ cancelsInMain: true });
  const estimateReq = createRequest<ResponseOf<'imagery:estimate'>>({ cancelsInMain: true });
  const downloadReq = createRequest<ResponseOf<'downloads:enqueue'>>();
  /** What the team already owns of the estimated composite (asked with each estimate). */
  const teamReq = createRequest<ResponseOf<'team:check'>>({ cancelsInMain: true });
  const checkedKey = ref<string | null>(null);
  const estimatedKey = ref<string | null>(null);
  /** Field errors of the last failed step, with the step's name. */
  const lastFailure = ref<{ step: 'check' | 'estimate' | 'download'; error: IpcError } | null>(null);
  /** Set after a step was attempted, so client errors show next to fields only once they matter. */
  const attempted = ref(false);

  const checkStale = computed(() => !!checkReq.data && checkedKey.value !== requestKey.value);
  const estimateStale = computed(() => !!estimateReq.data && estimatedKey.value !== requestKey.value);

  async function step(name: 'check' | 'estimate' | 'download', buyAnyway = false): Promise<boolean> {
    attempted.value = true;
    const body = compositeRequest.value;
    if (!body) return false;
    const key = requestKey.value;
    let r: Result<unknown>;
    if (name === 'check') {
      r = await checkReq.run((bridge) => bridge.imageryAvailable({ request: body }));
      if (r.ok) checkedKey.value = key;
    } else if (name === 'estimate') {
      teamReq.reset();
      r = await estimateReq.run((bridge) => bridge.imageryEstimate({ request: body }));
      if (r.ok) {
        estimatedKey.value = key;
        void teamReq.run((bridge) => bridge.teamCheck({ kind: 'composite', request: body }));
      }
    } else {
      r = await downloadReq.run((bridge) => bridge.downloadsEnqueue({ kind: 'composite', request: body, ...(buyAnyway ? { buyAnyway } : {}) }));
      if (r.ok) downloads.upsert(r.data as ResponseOf<'downloads:enqueue'>);
    }
    lastFailure.value = r.ok ? null : { step: name, error: r.error };
    return r.ok;
  }

  const check = () => step('check');
  const estimate = () => step('estimate');
  /** `buyAnyway`: the analyst saw that the team owns this and buys it again (main refuses otherwise). */
  const download = (buyAnyway = false) => step('download', buyAnyway);

  /** Reasons to show next to a settings field: client checks (after a first attempt) and the service's answer. */
  function fieldReasons(name: string): string[] {
    const out: string[] = [];
    if (attempted.value) out.push(...(settingsErrors.value[name] ?? []));
    const fields = lastFailure.value?.error.fields ?? {};
    for (const [k, rs] of Object.entries(fields)) {
      const key = k.toLowerCase().split(/[.[]/)[0];
      if (key === name.toLowerCase()) out.push(...rs);
    }
    return [...new Set(out)];
  }

  // ------------------------------------------------------------ tiles
  const tileSearchReq = createRequest<unknown>({ cancelsInMain: true });
  const tileMini = ref(false);
  const pickedTiles = ref<string[]>([]);
  const tileDownloadReq = createRequest<unknown>();
  const tileErrors = ref<Record<string, string[]>>({});

  /** Tile search rows with their GUID, geometry and whether they are mini-tiles. */
  const tiles = computed(() => {
    const rows = findRows(tileSearchReq.data)?.rows ?? [];
    const out: TileItem[] = [];
    for (const row of rows) {
      const guid = findGuid(row);
      if (!guid) continue;
      const mini = findKey(row, /mini/i, (v) => typeof v === 'boolean');
      out.push({ id: guid.value, row, geometry: findGeometry(row)?.geometry ?? null, mini: mini ? (mini.value as boolean) : tileMini.value });
    }
    return out;
  });

  async function searchTiles(form: Record<string, unknown>): Promise<void> {
    if (!aoi.valid) return;
    tileMini.value = Object.entries(form).some(([k, v]) => /mini/i.test(k) && v === true);
    pickedTiles.value = [];
    await tileSearchReq.run(operations.call('tasking.searchTiles', { body: { ...aoi.toRequest(), ...form } }));
  }

  function togglePick(guid: string): void {
    pickedTiles.value = pickedTiles.value.includes(guid) ? pickedTiles.value.filter((g) => g !== guid) : [...pickedTiles.value, guid];
  }

  /** The purchase of one picked tile or mini-tile: its GUID with the shared Date, Model, constellations and UploadUrl. */
  function tileRequest(guid: string): { kind: 'tile' | 'minitile'; request: Record<string, unknown> } {
    const t = tiles.value.find((x) => x.id === guid);
    const kind = t?.mini ? 'minitile' : 'tile';
    const request: Record<string, unknown> = {
      [kind === 'minitile' ? 'MiniTileGuid' : 'TileGuid']: guid,
      Date: settings.Date,
      Model: settings.Model,
      SatelliteConstellations: [...settings.SatelliteConstellations],
    };
    if (settings.UploadUrl.trim()) request.UploadUrl = settings.UploadUrl.trim();
    return { kind, request };
  }

  /** The picked tiles not queued when the last download stopped (the team owns the first of them: "Buy anyway" takes these). */
  const tilesLeft = ref<string[]>([]);

  /** Queues one tile or mini-tile download per picked GUID. `only`: these GUIDs instead; `buyAnyway`: the analyst buys what the team owns again. */
  async function downloadTiles(buyAnyway = false, only: string[] | null = null): Promise<number> {
    const errors: Record<string, string[]> = {};
    if (!settings.Date) errors.Date = ['Pick a date first.'];
    if (!settings.Model) errors.Model = ['Choose a model.'];
    if (!pickedTiles.value.length) errors.TileGuid = ['Pick tiles on the map first.'];
    tileErrors.value = errors;
    if (Object.keys(errors).length) return 0;
    let queued = 0;
    const wanted = only ?? pickedTiles.value;
    tilesLeft.value = [];
    for (const [i, guid] of wanted.entries()) {
      const { kind, request } = tileRequest(guid);
      const r = await tileDownloadReq.run((bridge) => bridge.downloadsEnqueue({ kind, request, ...(buyAnyway ? { buyAnyway } : {}) }));
      if (!r.ok) {
        tileErrors.value = r.error.fields ?? {};
        tilesLeft.value = wanted.slice(i);
        break;
      }
      downloads.upsert(r.data as ResponseOf<'downloads:enqueue'>);
      queued++;
    }
    return queued;
  }

  /**
   * What the team owns, or a teammate is buying now, of each picked tile for the shared Date and
   * Model: main's `team:check` per GUID (the first {@link TILE_TEAM_MAX} picked), asked again when
   * the picks, the date, the model or the constellations change. Only GUIDs with something to say
   * are kept (owned, claimed, or unchecked with the reason).
   */
  const tileTeamReq = createRequest<Record<string, TeamCheck>>({ rateLimitDelaysMs: [], cancelsInMain: true });
  const tileTeam = computed<Record<string, TeamCheck>>(() => tileTeamReq.data ?? {});

  async function checkTilesTeam(): Promise<void> {
    const state = useTeamStore().status?.state;
    const picked = pickedTiles.value.slice(0, TILE_TEAM_MAX);
    if (!state || state === 'off' || !settings.Date || !settings.Model || !picked.length) {
      tileTeamReq.reset();
      return;
    }
    await tileTeamReq.run(async (bridge) => {
      const out: Record<string, TeamCheck> = {};
      for (const guid of picked) {
        const r = await bridge.teamCheck(tileRequest(guid));
        if (!r.ok) return r;
        if (r.data.state !== 'none' && r.data.state !== 'off') out[guid] = r.data;
      }
      return { ok: true as const, data: out };
    });
  }

  watch([pickedTiles, () => settings.Date, () => settings.Model, () => settings.SatelliteConstellations.join(','), () => useTeamStore().status?.state], () => void checkTilesTeam());

  /** Leaves these GUIDs out of the picks (the team's copies were used, or a teammate is buying them). */
  function unpickTiles(guids: string[]): void {
    const drop = new Set(guids);
    pickedTiles.value = pickedTiles.value.filter((g) => !drop.has(g));
  }

  // ------------------------------------------------------------ legacy
  const legacyReq = createRequest<unknown>();

  async function runLegacy(form: Record<string, unknown>): Promise<void> {
    if (!aoi.valid || !aoi.wkt) return;
    // The deprecated operation takes its geography as WKT only.
    await legacyReq.run(operations.call('satelliteImages.geographyComposite', { body: { Wkt: aoi.wkt, ...form } }));
  }

  function resetSettings(): void {
    Object.assign(settings, defaults(), { Date: settings.Date, Model: settings.Model, SatelliteConstellations: settings.SatelliteConstellations });
    epsgFollowsAoi.value = true;
    settings.EpsgProjection = aoi.utmEpsg;
  }

  watch(() => session.generation, () => {
    searchReq.reset();
    checkReq.reset();
    estimateReq.reset();
    teamReq.reset();
    tileSearchReq.reset();
    tileTeamReq.reset();
    legacyReq.reset();
  });

  return {
    search, searchReq, searchErrors, searchStale, runSearch, geographies, dateIndex, availableDates, hoverDate, hoverGeography, pickDate, stepDate,
    settings, epsgFollowsAoi, setModel, toggleConstellation, setEpsg, utmEnabled, bands, settingsErrors, settingsValid, compositeRequest, requestKey,
    checkReq, estimateReq, downloadReq, teamReq, checkStale, estimateStale, lastFailure, attempted, check, estimate, download, fieldReasons, resetSettings,
    tileSearchReq, tiles, pickedTiles, tileMini, tileDownloadReq, tileErrors, tilesLeft, searchTiles, togglePick, downloadTiles,
    tileTeamReq, tileTeam, checkTilesTeam, unpickTiles,
    legacyReq, runLegacy,
  };
});
