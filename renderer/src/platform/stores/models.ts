import { defineStore } from 'pinia';
import { computed } from 'vue';
import type { ResponseOf } from '../../../../preload/contract';
import { perConnection } from './per-connection';

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
  const { request, load } = perConnection<ResponseOf<'tasking:models'>>((bridge) => bridge.taskingModels());
  const models = computed<TaskingModel[]>(() => request.data?.models ?? []);
  const names = computed(() => models.value.map((m) => m.Model));

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
