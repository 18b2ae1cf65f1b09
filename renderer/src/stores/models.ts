import { defineStore } from 'pinia';
import { computed, watch } from 'vue';
import type { ResponseOf } from '../../../preload/contract';
import { getBridge } from '../bridge';
import { createRequest } from '../lib/request';
import { useSessionStore } from './session';

/** A tasking model as /api/tasking/models lists it. */
export type TaskingModel = ResponseOf<'tasking:models'>['models'][number];

/** One constellation of a model: required ones are locked on in every picker. */
export interface ModelConstellation {
  name: string;
  optional: boolean;
}

/**
 * Tasking models and their constellations, loaded once per connection (the
 * session's `generation`) and shared by the imagery and tasking panels.
 * `constellationsFor(model)` lists a model's constellations; `normalise(model,
 * chosen)` returns a valid selection (required ones always included).
 */
export const useModelsStore = defineStore('models', () => {
  const session = useSessionStore();
  const request = createRequest<ResponseOf<'tasking:models'>>();
  let loadedFor = -1;
  let inflight: Promise<void> | null = null;

  const models = computed<TaskingModel[]>(() => request.data?.models ?? []);
  const names = computed(() => models.value.map((m) => m.Model));

  /** Loads the model list unless it is cached for the current connection. */
  function load(force = false): Promise<void> {
    if (!force && loadedFor === session.generation && (request.data || inflight)) return inflight ?? Promise.resolve();
    loadedFor = session.generation;
    inflight = request.run(() => getBridge().taskingModels()).then(() => {
      inflight = null;
    });
    return inflight;
  }

  // A new connection (profile, key) may serve another list: drop it, and reload it if it was in use.
  watch(() => session.generation, () => {
    const wasLoaded = loadedFor >= 0;
    request.reset();
    loadedFor = -1;
    inflight = null;
    if (wasLoaded) void load();
  });

  /** The constellations a model supports, required ones first. */
  function constellationsFor(model: string | null | undefined): ModelConstellation[] {
    const m = models.value.find((x) => x.Model === model);
    if (!m) return [];
    const list = m.SupportedSatelliteConstellations.map((c) => ({ name: c.SatelliteConstellation, optional: c.Optional }));
    return [...list.filter((c) => !c.optional), ...list.filter((c) => c.optional)];
  }

  /** A valid constellation selection for a model: its required ones plus the chosen optional ones it supports. */
  function normalise(model: string | null | undefined, chosen: readonly string[]): string[] {
    const list = constellationsFor(model);
    return list.filter((c) => !c.optional || chosen.includes(c.name)).map((c) => c.name);
  }

  return { request, models, names, load, constellationsFor, normalise };
});
