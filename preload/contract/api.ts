import type { CallOptions, CancelCall } from './calls';
import type { ChannelName, RequestOf, ResponseOf } from './channels';
import type { Result } from './errors';
import type { EventName, EventPayload } from './events';

/**
 * The shape of `window.swath`, derived from the channel map so that the
 * preload and the renderer cannot drift from main.
 */

/** Bridge method name of a channel: `billing:redeem-voucher` -> `billingRedeemVoucher`. */
export type MethodName<C extends string> = C extends `${infer Head}${':' | '-'}${infer Tail}`
  ? `${Head}${Capitalize<MethodName<Tail>>}`
  : C;

/** Runtime twin of {@link MethodName}; the preload uses it to build one function per channel. */
export function methodName<C extends string>(channel: C): MethodName<C> {
  return channel.replace(/[:-](.)/g, (_match, next: string) => next.toUpperCase()) as MethodName<C>;
}

// A request whose fields are all optional may be omitted by the caller (`Record<never, never>` is `{}`).
type Invoke<C extends ChannelName> =
  Record<never, never> extends RequestOf<C>
    ? (request?: RequestOf<C>, options?: CallOptions) => Promise<Result<ResponseOf<C>>>
    : (request: RequestOf<C>, options?: CallOptions) => Promise<Result<ResponseOf<C>>>;

/** Subscribes to a main-process event; returns the function that unsubscribes. */
export type Subscribe = <E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) => () => void;

/**
 * The local path of a file the user dropped on the window (Electron's webUtils.getPathForFile);
 * absent in the browser host, where pages cannot see paths.
 */
export type PathForFile = (file: Blob) => string;

/**
 * `window.swath`: one method per channel, `on` for events, `cancel` for a call given a `callId`
 * (and `pathForFile` in Electron).
 */
export type SwathApi = { [C in ChannelName as MethodName<C>]: Invoke<C> } & { on: Subscribe; cancel: CancelCall; pathForFile?: PathForFile };

/** Name of a bridge method (excluding `on` and `cancel`). */
export type BridgeMethodName = MethodName<ChannelName>;
