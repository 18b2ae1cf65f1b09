import { z } from 'zod';
import { channel, data, serviceBody } from './channel';
import { libraryCopySchema } from './downloads';
import { spendVerdictSchema } from './spend';

/** The imagery channels (imagery:*, spread into the contract's channel map): search, availability and estimates. */
export const imageryChannels = {
  /** search/available: dates with imagery in an area and period. */
  'imagery:search': channel(serviceBody, data),
  /** composite/available: whether one exact composite request can be fulfilled. */
  'imagery:available': channel(serviceBody, data),
  /** composite/estimate: download credit, and main's verdict on downloading it against the budget. */
  /** `inLibrary`: the identical file already in the analyst's library (then downloads:enqueue refuses without `buyAnyway`), or null. */
  'imagery:estimate': channel(serviceBody, z.object({ data: z.unknown(), verdict: spendVerdictSchema, inLibrary: libraryCopySchema.nullable() })),
  /** The deprecated geography/composite operation. */
  'imagery:legacy-composite': channel(serviceBody, data),
};
