import type { z } from 'zod';
import {
  CANCELLED_ERROR, callOptionsSchema, cancelMessageSchema, channels, type ChannelMap, type Channels, type IpcError, type Result,
} from '../../preload/contract';
import { SecretLeakError, TooDeepError, sealForRenderer } from '../api/redact';
import type { SecretRegistry } from '../platform/secrets';
import { toIpcError } from './errors';

/** What a handler knows about the call besides its payload. */
export interface HandlerContext {
  /** URL of the frame that sent the request (already checked against the sender policy). */
  senderUrl: string;
  /** Aborted when the sender cancels the call, or the transport gives up on it (a closed window or socket). */
  signal: AbortSignal;
}

/** Implementation of one channel: receives the parsed request, returns the response data or throws. */
export type Handler<Req, Res> = (request: Req, context: HandlerContext) => Res | Promise<Res>;

/** One handler per channel of contract `M`; the type forces the table to be complete. */
export type HandlerTable<M extends ChannelMap = Channels> = {
  [C in keyof M]: Handler<z.output<M[C]['request']>, z.input<M[C]['response']>>;
};

/** Options of {@link createDispatcher}. */
export interface DispatcherOptions<M extends ChannelMap> {
  /** Decides whether a request from the frame at this URL may be served. */
  isAllowedSender: (senderUrl: string) => boolean;
  /** The channel map to enforce; defaults to the app's contract. */
  contract?: M;
  /** The app's secret registry (`SwathApp.secrets`): every answer and error is sealed against it. */
  secrets: SecretRegistry;
}

/**
 * Who sent a call, for cancellation: `sender` is the window (WebContents) or connection the call
 * came from, and only that sender can cancel it; `options` is what the caller passed next to the
 * request (its `callId`), unvalidated.
 */
export interface CallOrigin {
  sender: object;
  options: unknown;
}

/** Transport-agnostic entry point that both the Electron host and the browser host call. */
export interface Dispatcher {
  /** Channel names the dispatcher serves, so a transport can register exactly these. */
  readonly channels: readonly string[];
  /**
   * Validates the sender, payload and call options, runs the handler, and always resolves to a
   * {@link Result}. With an `origin`, the call can be cancelled by {@link cancel} or {@link release}.
   */
  dispatch(channel: string, payload: unknown, senderUrl: string | null | undefined, signal?: AbortSignal, origin?: CallOrigin): Promise<Result<unknown>>;
  /** A `cancel` message from `sender`: aborts that sender's running call with this id. False when refused, malformed or not running. */
  cancel(sender: object, message: unknown, senderUrl: string | null | undefined): boolean;
  /** The sender went away (window closed, socket dropped): aborts all its running calls. */
  release(sender: object): void;
}

/** Builds the dispatcher for a handler table: sender check, zod validation and error capture in one place. */
export function createDispatcher<M extends ChannelMap = Channels>(
  handlers: HandlerTable<M>,
  options: DispatcherOptions<M>,
): Dispatcher {
  const contract = (options.contract ?? channels) as M;
  const names = Object.keys(contract);
  for (const name of names) {
    if (typeof (handlers as Record<string, unknown>)[name] !== 'function') {
      throw new Error(`No handler for channel "${name}".`);
    }
  }

  /** Running calls by sender, by call id (a symbol for calls without one: only {@link release} reaches them). */
  const running = new WeakMap<object, Map<number | symbol, AbortController>>();
  const allowed = (senderUrl: string | null | undefined): senderUrl is string => !!senderUrl && safeIsAllowed(options.isAllowedSender, senderUrl);

  async function dispatch(
    channel: string,
    payload: unknown,
    senderUrl: string | null | undefined,
    signal?: AbortSignal,
    origin?: CallOrigin,
  ): Promise<Result<unknown>> {
    // Checked before anything else so an untrusted frame learns nothing, not even which channels exist.
    if (!allowed(senderUrl)) {
      return failure({ kind: 'auth', message: 'Request refused: the sender is not the Swath window.' });
    }
    if (!Object.hasOwn(contract, channel)) {
      return failure({ kind: 'not-found', message: `Unknown channel "${channel}".` });
    }
    const spec = contract[channel]!;
    const parsed = spec.request.safeParse(payload);
    if (!parsed.success) {
      return failure({
        kind: 'validation',
        message: `Invalid request for "${channel}".`,
        fields: issuesToFields(parsed.error.issues),
      });
    }
    const call = register(origin);
    if (!call.ok) return call;
    const { key, calls, controller } = call.data;
    const aborted = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    const handler = handlers[channel as keyof M] as Handler<unknown, unknown>;
    let data: unknown;
    try {
      data = await handler(parsed.data, { senderUrl, signal: aborted });
    } catch (error) {
      // Whatever a handler throws once its call is cancelled (a DOMException, a wrapped error), it answers 'cancelled'.
      // Last line of defence: no key main holds leaves in an error, whatever threw it.
      return failure(aborted.aborted ? CANCELLED_ERROR : sealError(toIpcError(error), options.secrets));
    } finally {
      calls?.delete(key);
    }
    if (aborted.aborted) return failure(CANCELLED_ERROR);
    // Parsing the answer strips undeclared fields, so main cannot leak a secret by accident.
    const checked = spec.response.safeParse(data);
    if (!checked.success) {
      return failure({ kind: 'io', message: `The main process produced an invalid response for "${channel}".` });
    }
    // ...nor in a result: every key main holds is masked, wherever a handler got the value from, and the
    // serialised result is checked for every key once more; a result too deep to walk is refused whole.
    try {
      return { ok: true, data: sealForRenderer(checked.data, options.secrets, `The answer of "${channel}"`) };
    } catch (error) {
      if (error instanceof TooDeepError || error instanceof SecretLeakError) return failure(toIpcError(error));
      throw error;
    }
  }

  /** Validates a call's options and records its controller under the sender, so a cancel can reach it. */
  function register(origin: CallOrigin | undefined) {
    const controller = new AbortController();
    const key: number | symbol = Symbol('call');
    if (!origin) return { ok: true as const, data: { key, calls: undefined, controller } };
    const parsed = callOptionsSchema.optional().safeParse(origin.options);
    if (!parsed.success) {
      return failure({ kind: 'validation', message: 'Invalid call options.', fields: issuesToFields(parsed.error.issues) });
    }
    const id = parsed.data?.callId;
    let calls = running.get(origin.sender);
    if (!calls) running.set(origin.sender, (calls = new Map()));
    if (id !== undefined && calls.has(id)) {
      return failure({ kind: 'validation', message: `Call id ${id} is already in use.`, fields: { callId: ['Already used by a running call.'] } });
    }
    calls.set(id ?? key, controller);
    return { ok: true as const, data: { key: id ?? key, calls, controller } };
  }

  function cancel(sender: object, message: unknown, senderUrl: string | null | undefined): boolean {
    if (!allowed(senderUrl)) return false;
    const parsed = cancelMessageSchema.safeParse(message);
    const controller = parsed.success ? running.get(sender)?.get(parsed.data.callId) : undefined;
    controller?.abort();
    return !!controller;
  }

  function release(sender: object): void {
    for (const controller of running.get(sender)?.values() ?? []) controller.abort();
    running.delete(sender);
  }

  return { channels: names, dispatch, cancel, release };
}

/** An error as it may leave main: masked and checked like a result; one that cannot be made safe is replaced by a plain one. */
function sealError(error: IpcError, secrets: SecretRegistry): IpcError {
  try {
    return sealForRenderer(error, secrets, 'The error');
  } catch (refused) {
    return toIpcError(refused);
  }
}

function failure(error: IpcError): Result<never> {
  return { ok: false, error };
}

function safeIsAllowed(predicate: (url: string) => boolean, url: string): boolean {
  try {
    return predicate(url);
  } catch {
    return false;
  }
}

const ROOT_FIELD = '(root)';

/** Groups zod issues as the service does: property path -> list of reasons. */
export function issuesToFields(issues: readonly z.core.$ZodIssue[]): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  const add = (path: readonly PropertyKey[], reason: string): void => {
    const key = path.length === 0 ? ROOT_FIELD : path.map(String).join('.');
    (fields[key] ??= []).push(reason);
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      // Attribute each unexpected key to itself rather than to the enclosing object.
      for (const key of issue.keys) add([...issue.path, key], 'Unknown field.');
    } else {
      add(issue.path, issue.message);
    }
  }
  return fields;
}
