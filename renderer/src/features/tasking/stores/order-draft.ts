import { defineStore, storeToRefs } from 'pinia';
import { computed, reactive, ref, watch } from 'vue';
import { addDaysUtc, todayUtc } from '../../../platform/lib/format';
import {
  DEFAULT_FREQUENCY_RANGE, backfillNote, buildOrderRequest, cadencePreview, resolveModelName, tileArea, validateOrderForm,
  type FieldErrors, type FrequencyRange, type OrderArea, type OrderAreaKind, type OrderFormValues, type OrderKind,
} from '../model/tasking-order';
import type { OrderSummary } from '../model/tasking-records';
import { useAoiStore } from '../../../platform/stores/aoi';
import { useModelsStore } from '../../../platform/stores/models';
import { useSessionStore } from '../../../platform/stores/session';
import { useTileSearchStore } from './tile-search';

/**
 * The order draft: the order form (model, constellations, dates, frequency), its area (the AOI in
 * polygon mode, the selected tiles in tile mode), the client's checks and the request the form
 * would estimate now. The tasking store estimates and places it.
 */
export const useOrderDraftStore = defineStore('tasking-draft', () => {
  const session = useSessionStore();
  const aoi = useAoiStore();
  const models = useModelsStore();
  const { selectedCells } = storeToRefs(useTileSearchStore());

  /** The clock the day-dependent checks use (ms); the panel ticks it. */
  const now = ref(Date.now());
  const today = computed(() => todayUtc(new Date(now.value)));

  const start = todayUtc();
  const form = reactive<OrderFormValues>({
    model: '',
    constellations: [],
    storageMonths: 0,
    apiRequests: 0,
    imageFrequency: 7,
    referenceDate: addDaysUtc(start, -60),
    from: addDaysUtc(start, -60),
    to: start,
    kind: 'historical',
  });
  const areaKind = ref<OrderAreaKind>('polygon');
  const tileDeduplication = ref(true);

  /**
   * Whether ReferenceDate follows From. It does until the analyst sets another
   * reference date (typed, or adopted from an earlier order), and again from
   * "= From" and once an order is created: one order's anchor never carries
   * over to the next order, whose From differs.
   */
  const referenceFollowsFrom = ref(true);
  watch(() => form.from, (from) => {
    if (referenceFollowsFrom.value) form.referenceDate = from;
  }, { flush: 'sync' });
  watch(() => form.referenceDate, (date) => {
    referenceFollowsFrom.value = date === form.from;
  }, { flush: 'sync' });

  /** Makes ReferenceDate follow From again (and equal it now). */
  function followFrom(): void {
    form.referenceDate = form.from;
    referenceFollowsFrom.value = true;
  }

  // ---------------------------------------------------------------- models

  const modelNames = computed(() => models.names);
  const modelCheck = computed(() => resolveModelName(form.model, modelNames.value));
  /** The picked model's constellations, required ones first (empty until the model is an enum value). */
  const constellationChoices = computed(() => (modelCheck.value.ok ? models.constellationsFor(modelCheck.value.value) : []));
  const learnedRanges = ref<Record<string, FrequencyRange>>({});
  /** ImageFrequency range for the model: 1-7 days unless the service has named another. */
  const frequencyRange = computed<FrequencyRange>(() => learnedRanges.value[form.model] ?? DEFAULT_FREQUENCY_RANGE);

  /** Picks a model (an enum value); its required constellations are switched on, unsupported ones off. */
  function setModel(name: string): void {
    form.model = name;
    const check = resolveModelName(name, modelNames.value);
    if (check.ok) form.constellations = models.normalise(check.value, form.constellations);
  }

  /** Replaces a pasted display name by the enum value it stands for. */
  function useSuggestedModel(): void {
    const c = modelCheck.value;
    if (!c.ok && c.suggestion) setModel(c.suggestion);
  }

  /** Switches an optional constellation; required ones stay on. */
  function toggleConstellation(name: string, on: boolean): void {
    const choice = constellationChoices.value.find((c) => c.name === name);
    if (!choice || !choice.optional) return;
    const next = new Set(form.constellations);
    if (on) next.add(name);
    else next.delete(name);
    form.constellations = models.normalise(form.model, [...next]);
  }

  /** Loads the models (once per connection) and picks the first when none is chosen. */
  async function loadModels(): Promise<void> {
    await models.load();
    if (!form.model && modelNames.value.length) setModel(modelNames.value[0]!);
  }

  /** Historical or recurring. */
  function setKind(kind: OrderKind): void {
    form.kind = kind;
  }

  // ---------------------------------------------------------------- the order's area and request

  /** The order's area: the AOI in polygon mode, the selected GUIDs in tile mode. */
  const area = computed<{ area: OrderArea | null; error: string | null; mini: boolean | null; guids: string[] }>(() => {
    if (areaKind.value === 'polygon') {
      void aoi.revision;
      if (!aoi.valid) return { area: null, error: aoi.problems[0]?.message ?? 'Draw or import an area of interest first.', mini: null, guids: [] };
      return { area: aoi.toRequest() as OrderArea, error: null, mini: null, guids: [] };
    }
    const cells = selectedCells.value;
    if (!cells.length) return { area: null, error: 'Select tiles or mini-tiles from the tile search first.', mini: null, guids: [] };
    const kinds = new Set(cells.map((c) => c.mini));
    if (kinds.size > 1) return { area: null, error: 'Select only tiles or only mini-tiles: one order takes one kind.', mini: null, guids: [] };
    const mini = cells[0]!.mini;
    const guids = cells.map((c) => c.guid);
    return { area: tileArea(guids, mini), error: null, mini, guids };
  });

  /** Client-side problems of the form, keyed by request property. */
  const formErrors = computed<FieldErrors>(() => {
    const errors = validateOrderForm(form, { models: modelNames.value, constellations: constellationChoices.value, frequency: frequencyRange.value });
    if (area.value.error) (errors[areaKind.value === 'polygon' ? 'Area' : 'TileGuids'] ??= []).push(area.value.error);
    return errors;
  });
  /** The request the form would estimate now (null without an area). */
  const draftRequest = computed<Record<string, unknown> | null>(() => (area.value.area ? buildOrderRequest(form, area.value.area) : null));
  const cadence = computed(() => cadencePreview(form, today.value));
  const backfill = computed(() => backfillNote(form, today.value));

  /** Copies the dedup-relevant settings of an earlier order into the form, so deduplication can match it. */
  function adoptSettingsOf(summary: OrderSummary): void {
    if (summary.model) setModel(summary.model);
    if (summary.constellations) form.constellations = models.normalise(summary.model ?? form.model, summary.constellations);
    if (summary.recurring !== null) form.kind = summary.recurring ? 'recurring' : 'historical';
    if (summary.imageFrequency !== null) form.imageFrequency = summary.imageFrequency;
    if (summary.referenceDate) form.referenceDate = summary.referenceDate;
  }

  watch(() => session.generation, () => {
    learnedRanges.value = {};
    form.model = '';
    form.constellations = [];
  });

  return {
    now, today, form, areaKind, tileDeduplication, referenceFollowsFrom, followFrom,
    modelNames, modelCheck, constellationChoices, learnedRanges, frequencyRange, setModel, useSuggestedModel, toggleConstellation, loadModels, setKind,
    area, formErrors, draftRequest, cadence, backfill, adoptSettingsOf,
  };
});
