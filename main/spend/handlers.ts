import type { HandlerTable } from '../ipc';
import type { SpendGuard } from './guard';

/** The channels of the spend guard. */
export type SpendChannel = 'spend:get' | 'spend:set-budget';

/** `spend:get` (the month's spend plus a cost, and main's verdict on it) and `spend:set-budget`. */
export function spendHandlers(guard: SpendGuard): Pick<HandlerTable, SpendChannel> {
  return {
    'spend:get': ({ costEur }, { signal }) => guard.verdict({ state: 'known', eur: costEur ?? 0 }, signal),
    'spend:set-budget': ({ budgetEur }, { signal }) => guard.setBudget(budgetEur, signal),
  };
}
