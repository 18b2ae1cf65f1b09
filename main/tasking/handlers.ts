import { canonicalBody, canonicalPayload, type ServiceClient } from '../api';
import { orderCost } from '../../common/money.js';
import type { HandlerTable } from '../ipc';
import type { Estimator, SpendGuard } from '../spend';

/**
 * The tasking:* channels: models, estimates and orders. An order costs money, so the spend guard
 * decides on main's own estimate of that exact payload, never on a cost the page names.
 */

/** The channels of tasking. */
export type TaskingChannel = 'tasking:models' | 'tasking:estimate' | 'tasking:create';

/** What the tasking channels need. */
export interface TaskingHandlerDeps {
  /** The active profile's client. */
  client: (signal: AbortSignal) => Promise<ServiceClient>;
  /** The active profile's id (estimates are kept per profile). */
  profileId: () => Promise<string>;
  /** The one spend guard, and main's own estimates it decides on. */
  guard: SpendGuard;
  estimator: Estimator;
}

/** Tasking's slice of the channel table. */
export function taskingHandlers(deps: TaskingHandlerDeps): Pick<HandlerTable, TaskingChannel> {
  const { client, guard, estimator, profileId } = deps;
  return {
    'tasking:models': async (_r, { signal }) => ({ models: await (await client(signal)).taskingModels(signal) }),
    'tasking:estimate': async ({ request }, { signal }) => {
      const { estimate, payload } = await estimator.order(await client(signal), await profileId(), JSON.stringify(canonicalBody('order', request)), signal, true);
      return { estimate, payload, verdict: await guard.verdict(orderCost(estimate), signal) };
    },
    'tasking:create': async ({ payload: given, tileDeduplication }, { signal }) => {
      // The text estimated and created: the payload rebuilt in the one spelling (the estimate's own text is unchanged by it).
      const payload = canonicalPayload(given);
      const c = await client(signal);
      // Main's own estimate of this exact payload (the one just made, else a new one): never a cost the page names.
      const cost = orderCost((await estimator.order(c, await profileId(), payload, signal)).estimate);
      const pass = await guard.clear(cost, 'This order', signal, { ask: true });
      try {
        const data = await c.createOrder(payload, signal, { tileDeduplication });
        await pass.spent();
        return { data };
      } finally {
        pass.release();
      }
    },
  };
}
