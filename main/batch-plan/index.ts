/**
 * The batch planner: a composite request split into parts within the account's limits (area, bands),
 * the AOI's geometry, and a series' dates. Pure planning, below both the spend guard (which prices a
 * plan) and the downloads (which run one).
 */
export { PlanError, type Rings } from './geo.js';
export { expandBandnames, bandnamesFor, type ExpandedBandnames } from './bandnames.js';
export {
  bandGroupsOf, limitsFromAccountInfo, planComposite, resolveOutputEpsg, serviceWindowOf,
  type BatchLimits, type BatchPart, type BatchPlan, type CompositeBody, type OutputGrid, type PixelWindow, type PlanBlock, type PlanOptions,
} from './plan.js';
export { datesFromSearchAvailable, withDate } from './time-series.js';
