import { CONTRACT_VERSION } from '../../preload/contract';
import type { OpenOperationKey } from '../api';
import { AppError } from '../../common/errors.js';
import type { HandlerTable } from '../ipc';
import type { SpendGuard } from '../spend';
import type { ServiceSession } from './session';

/**
 * The connection's channels: the app and its connection to the active profile's service
 * (app:info, service:*), the service's status, its open operations and the operations console's
 * calls (cancelling an order asks the analyst first, through the spend guard's consent).
 */

/** The channels of the connection. */
export type ConnectionChannel = 'app:info' | 'service:ping' | 'service:status' | 'service:reconnect' | 'service:operations' | 'service:call';

/** What the connection's channels need. */
export interface ConnectionHandlerDeps {
  version: string;
  platform: string;
  session: ServiceSession;
  /** The one spend guard: its consent before an order is cancelled. */
  guard: SpendGuard;
  now?: () => number;
}

/** The connection's slice of the channel table. */
export function connectionHandlers(deps: ConnectionHandlerDeps): Pick<HandlerTable, ConnectionChannel> {
  const { session, guard } = deps;
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
