import type { HandlerTable } from './dispatcher';

/** Some channels of the contract, each with its handler: what one feature serves. */
export type HandlerSlice = Partial<HandlerTable>;

/** The intersection of a union's members (the slices' tables joined into one type). */
type Joined<U> = (U extends unknown ? (slice: U) => void : never) extends (slice: infer J) => void ? J : never;

/**
 * The channel table joined from the features' slices. A channel served by two slices is an error,
 * never a silent override; assigning the result to {@link HandlerTable} checks that the slices
 * cover the whole contract.
 */
export function joinSlices<S extends HandlerSlice[]>(...slices: S): Joined<S[number]> {
  const table: Record<string, unknown> = {};
  for (const slice of slices) {
    for (const [channel, handler] of Object.entries(slice)) {
      if (Object.hasOwn(table, channel)) throw new Error(`Two features serve the channel "${channel}".`);
      table[channel] = handler;
    }
  }
  return table as Joined<S[number]>;
}
