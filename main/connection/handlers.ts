import { CONTRACT_VERSION } from '../../preload/contract';
import { canonicalBody, canonicalPayload, type CompositeAvailableRequest, type GeographyCompositeRequest, type OpenOperationKey, type SearchAvailableRequest } from '../api';
import { downloadCost, orderCost } from '../../common/money.js';
import { AppError } from '../../common/errors.js';
import { identicalInLibrary, type Estimator, type LibraryLookup } from '../downloads';
import type { HandlerTable } from '../ipc';
import type { SpendGuard } from '../spend';
import type { ServiceSession } from './session';

/**
 * The service session's channels: the app and its connection (app:info, service:*), the account
 * and billing, imagery search and estimates, and tasking. What costs money here (an order) is
 * decided by the spend guard on main's own estimate of that exact payload.
 */

/** The channels of the service session. */
export type SessionChannel =
  | 'app:info' | 'service:ping' | 'service:status' | 'service:reconnect' | 'service:operations' | 'service:call'
  | 'account:info' | 'account:settings' | 'billing:summary' | 'billing:orders' | 'billing:transactions'
  | 'imagery:search' | 'imagery:available' | 'imagery:estimate' | 'imagery:legacy-composite'
  | 'tasking:models' | 'tasking:estimate' | 'tasking:create';

/** What the session's channels need. */
export interface SessionHandlerDeps {
  version: string;
  platform: string;
  session: ServiceSession;
  /** The active profile's id (estimates are kept per profile). */
  profileId: () => Promise<string>;
  /** The one spend guard, and main's own estimates it decides on. */
  guard: SpendGuard;
  estimator: Estimator;
  /** The analyst's library: an estimate names the identical file already in it. */
  library?: LibraryLookup;
  now?: () => number;
}

/** The session's slice of the channel table. */
export function sessionHandlers(deps: SessionHandlerDeps): Pick<HandlerTable, SessionChannel> {
  const { session, guard, estimator, profileId } = deps;
  const now = deps.now ?? (() => performance.now());
  const client = (signal: AbortSignal) => session.client(signal);

  return {
    'app:info': async () => {
      const status = await session.status();
      return {
        version: deps.version,
        platform: deps.platform,
        service: { label: status.label, baseUrl: status.baseUrl ?? '', demo: status.demo },
        contractVersion: CONTRACT_VERSION,
      };
    },
    'service:ping': async (_r, { signal }) => {
      const started = now();
      try {
        await (await client(signal)).accountInfo(signal, { retry: false });
        return { reachable: true, latencyMs: Math.max(0, now() - started) };
      } catch (error) {
        const kind = (error as { kind?: string }).kind;
        if (kind === 'auth' || kind === 'cancelled') throw error;
        return { reachable: false, latencyMs: Math.max(0, now() - started) };
      }
    },
    'service:status': () => session.status(),
    'service:reconnect': async (_r, { signal }) => {
      session.invalidate();
      await client(signal).catch(() => undefined);
      return session.status();
    },
    'service:operations': async (_r, { signal }) => {
      const c = await client(signal);
      return {
        operations: c.openOperations().map((op) => ({
          key: op.key, operationId: op.operationId, method: op.method, path: op.path, summary: op.summary,
          deprecated: op.deprecated, parameters: op.parameters as Record<string, unknown>,
          body: (op.body as Record<string, unknown> | null) ?? null, bodyRequired: op.bodyRequired,
        })),
      };
    },
    'service:call': async ({ key, params, body }, { signal }) => {
      const c = await client(signal);
      if (!c.openOperations().some((op) => op.key === key)) {
        throw new AppError('not-found', `The service's specification has no operation "${key}".`);
      }
      if (key === 'tasking.orders.cancel') await consentToCancel(guard, params);
      return { data: await c.callOpen(key as OpenOperationKey, { params, body }, signal) };
    },

    'account:info': async (_r, { signal }) => ({ data: await (await client(signal)).accountInfo(signal) }),
    'account:settings': async (_r, { signal }) => ({ data: await (await client(signal)).accountSettings(signal) }),
    'billing:summary': async (_r, { signal }) => ({ data: await (await client(signal)).billingSummary(signal) }),
    'billing:orders': async (period, { signal }) => ({ data: await (await client(signal)).billingOrders(period, signal) }),
    'billing:transactions': async (period, { signal }) => ({ data: await (await client(signal)).billingTransactions(period, signal) }),

    'imagery:search': async ({ request }, { signal }) => ({ data: await (await client(signal)).searchAvailable(request as unknown as SearchAvailableRequest, signal) }),
    'imagery:available': async ({ request }, { signal }) => ({ data: await (await client(signal)).compositeAvailable(request as unknown as CompositeAvailableRequest, signal) }),
    'imagery:estimate': async ({ request }, { signal }) => {
      // Kept briefly as main's own estimate of this exact request: a download of it right after is decided on this answer.
      const body = canonicalBody('estimate', request);
      const data = await estimator.composite(await client(signal), await profileId(), body, signal, true);
      const kind = body.TileGuid != null ? 'tile' : body.MiniTileGuid != null ? 'minitile' : 'composite';
      return { data, verdict: await guard.verdict(downloadCost(data), signal), inLibrary: await identicalInLibrary(deps.library, kind, body) };
    },
    'imagery:legacy-composite': async ({ request }, { signal }) => ({
      // Deprecated by the service; reachable on purpose, under "legacy", with a notice in the UI.
      data: await (await client(signal)).geographyComposite(request as unknown as GeographyCompositeRequest, signal),
    }),

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

/**
 * Cancelling an order cannot be undone (one in Review is gone, a recurring one stops renewing), so
 * main asks the analyst itself; a host without its dialog (the browser host) refuses.
 */
async function consentToCancel(guard: SpendGuard, params: Record<string, unknown> | undefined): Promise<void> {
  // The page names the order: only an id-like value goes into main's dialog, never text of its choosing.
  const named = Object.values(params ?? {}).filter((v): v is string => typeof v === 'string' && /^[\w-]{1,100}$/.test(v));
  const order = named.length ? `tasking order ${named.join(', ')}` : 'tasking order';
  await guard.consent(
    { title: 'Cancel the order?', message: named.length ? `Cancel ${order}?` : `Cancel this ${order}?`, detail: 'An order in Review is cancelled; a recurring order stops renewing. This cannot be undone.', confirmLabel: 'Cancel order' },
    `The ${order} stays as it is.`,
  );
}
