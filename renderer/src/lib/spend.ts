import { getBridge } from '../bridge';
import type { MoneyLine } from './tasking-estimate';

/**
 * What an order estimate says it costs this month, found by name among its money lines (the
 * contract does not show the estimate's fields): the current month's cost of the order
 * ("CurrentMonthCost", "currentMonthOrderCostEstimate"), never the account's spend so far
 * ("CurrentMonthCosts"); else a historic or total cost. Null when none of them is there.
 */
export function orderCostThisMonth(lines: readonly MoneyLine[]): number | null {
  const last = (l: MoneyLine) => (l.key.split('.').pop() ?? l.key).replace(/[\s_-]/g, '');
  const by = (re: RegExp) => lines.find((l) => re.test(last(l)) && Number.isFinite(l.value))?.value ?? null;
  return by(/^currentmonth(order)?cost(estimate)?$/i) ?? by(/^currentmonthordercost/i) ?? by(/^(total)?historic(order)?cost/i) ?? by(/^totalcost$/i);
}

/**
 * Before acting on a cost: when it would take the month past the budget, asks main for the
 * analyst's consent (main's own native dialog; refused where the host has none). Resolves null
 * when it may go ahead, else why not ("Not downloaded: …").
 */
export async function clearSpend(costEur: number | null, what: string, refused: string): Promise<string | null> {
  if (costEur === null || !(costEur > 0)) return null;
  const check = await getBridge().spendGet({ costEur });
  if (!check.ok || !check.data.overBudget) return null;
  const ok = await getBridge().spendConfirmOver({ costEur, what });
  if (ok.ok && ok.data.confirmed) return null;
  return ok.ok ? `${refused}: it would go past the monthly budget.` : `${refused}: ${ok.error.message}`;
}
