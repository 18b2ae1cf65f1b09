import { z } from 'zod';
import { channel, data, noRequest } from './channel';

/** Schemas of the billing channels (billing:*): the service's answers as it sends them. */

const yearMonth = z.strictObject({
  year: z.number().int('year must be a whole number.'),
  month: z.number().int('month must be a whole number.'),
});

/** The billing channels (spread into the contract's channel map). */
export const billingChannels = {
  /** Billing overview of the current month. */
  'billing:summary': channel(noRequest, data),
  /** Orders and their costs for a month. */
  'billing:orders': channel(yearMonth, data),
  /** Balance transactions for a month. */
  'billing:transactions': channel(yearMonth, data),
};
