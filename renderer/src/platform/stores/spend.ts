import { defineStore } from 'pinia';
import type { ResponseOf } from '../../../../preload/contract';
import { getBridge } from '../bridge';

/** Main's spend figures as the views show them; main decides every spend itself. */
export const useSpendStore = defineStore('spend', () => {
  /** This month's spend against the budget (no cost), or null when main could not say. */
  async function monthSoFar(): Promise<ResponseOf<'spend:get'> | null> {
    const r = await getBridge().spendGet({ costEur: 0 });
    return r.ok ? r.data : null;
  }
  return { monthSoFar };
});
