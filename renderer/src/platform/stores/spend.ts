import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import type { ResponseOf } from '../../../../preload/contract';
import { ask, listen } from '../request';
import { rerunning } from '../lib/rerun';
import { useSessionStore } from './session';

/**
 * Main's spend figures as the views show them; main decides every spend itself. The month so far
 * is main's one figure (`spend:get`), asked again whenever main says it may have changed
 * (`spend:changed`), so every view that shows it shows the same.
 */
export const useSpendStore = defineStore('spend', () => {
  /** This month's spend against the budget (no cost), as main last said; null until it did. */
  const month = ref<ResponseOf<'spend:get'> | null>(null);
  let unsubscribe: (() => void) | null = null;
  const session = useSessionStore();

  /** Asks main again; a change while asking asks once more after, never in parallel. */
  const refresh = rerunning(async () => {
    const r = await ask((bridge) => bridge.spendGet({ costEur: 0 }));
    if (r.ok) month.value = r.data;
  });

  /** Follows main's figure from now on (once), and asks for it now. */
  function start(): Promise<void> {
    unsubscribe ??= listen('spend:changed', () => void refresh());
    return refresh();
  }

  /** This month's spend against the budget (no cost), or null when main could not say. */
  async function monthSoFar(): Promise<ResponseOf<'spend:get'> | null> {
    await start();
    return month.value;
  }

  // Another profile or key: another account, another month's figure.
  watch(() => session.generation, () => {
    month.value = null;
    if (unsubscribe) void refresh();
  });

  function stop(): void {
    unsubscribe?.();
    unsubscribe = null;
    month.value = null;
  }
  return { month, start, refresh, monthSoFar, stop };
});
