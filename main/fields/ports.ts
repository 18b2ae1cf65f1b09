import type { ParcelStore } from './parcels.js';
import type { FieldStatistics } from './stats/index.js';

/**
 * What the fields' channels, exports and monitoring use of the parcel store and of the statistics
 * engine, so the glue and its tests depend on what it calls and nothing else.
 */

export type { Bbox, ParcelCrs, ParcelGeometry, Position } from './geometry.js';
export type { InspectedFile, Parcel, ParcelSet, SkippedParcel } from './parcels.js';
export type { FieldStatistic, PixelRule, StatisticKey } from './stats/index.js';

/** One layer of an inspected file. */
export type InspectedLayer = Awaited<ReturnType<ParcelStore['inspect']>>['layers'][number];

/** The parcel store as the fields' glue uses it. */
export type ParcelsPort = Pick<ParcelStore, 'inspect' | 'import' | 'sets' | 'set' | 'delete' | 'parcels' | 'eachParcel'>;

/** The statistics engine as the fields' glue uses it. */
export type StatisticsPort = Pick<FieldStatistics, 'run' | 'results' | 'latest'>;
