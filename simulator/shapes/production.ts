import { OPERATIONS } from '../spec.js';
import { unchanged, type ShapeStyle } from './wire.js';

/**
 * The production style (default): the handlers' records are already the shapes the
 * production service's own public client parses (service-facts.md), so every operation
 * goes on the wire as it is: envelope {Data, Succeeded, Error: null}, Data.TaskOrders,
 * the estimate's Costs{...}, tile Epsg as text, account info echoing Key.
 */
export function productionStyle(): ShapeStyle {
  return {
    name: 'production',
    description: 'Answer style "production": the shapes the production service\'s public client parses.',
    operations: OPERATIONS.map(unchanged),
  };
}
