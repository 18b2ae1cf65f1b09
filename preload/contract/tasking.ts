import { z } from 'zod';
import { MAX_PAYLOAD_TEXT, boundedText } from './bounds';
import { channel, data, noRequest, serviceBody } from './channel';
import { spendVerdictSchema } from './spend';

/** Schemas of the tasking channels (tasking:*): models, estimates and orders. */

/** A tasking model from /api/tasking/models. */
export const taskingModelSchema = z.object({
  Model: z.string(),
  SupportedSatelliteConstellations: z.array(z.object({ SatelliteConstellation: z.string(), Optional: z.boolean() })),
});

/** The tasking channels (spread into the contract's channel map). */
export const taskingChannels = {
  /** Tasking models and their constellations (cached per connection). */
  'tasking:models': channel(noRequest, z.object({ models: z.array(taskingModelSchema) })),
  /** Estimates an order; returns the exact payload to send to create, and main's verdict on placing it against the budget. */
  'tasking:estimate': channel(serviceBody, z.object({ estimate: z.unknown(), payload: z.string(), verdict: spendVerdictSchema })),
  /**
   * Creates an order from the estimated payload, byte for byte; never retried automatically. Main's
   * spend guard decides first, from its own estimate of that payload: past the budget or at an
   * unknown cost only with the analyst's consent in main's native dialog; never past the policy's ceiling.
   */
  'tasking:create': channel(z.strictObject({ payload: boundedText(MAX_PAYLOAD_TEXT).min(2), tileDeduplication: z.boolean().optional() }), data),
};
