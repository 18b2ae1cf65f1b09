import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { CONSTELLATIONS, MODELS, RESOLUTIONS } from './catalog.js';

extendZodWithOpenApi(z);

// One module holds every request and response schema: the server validates with
// them and spec.ts publishes them, so the specification cannot drift from behaviour.

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Whether a YYYY-MM-DD string names a real calendar day. */
export function isRealDate(s: string): boolean {
  if (!DATE_RE.test(s.slice(0, 10))) return false;
  const d = new Date(`${s.slice(0, 10)}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s.slice(0, 10);
}

/** A plain date. */
export const DateOnly = z
  .string()
  .regex(DATE_RE, 'Must be a date in the form YYYY-MM-DD.')
  .refine(isRealDate, 'Is not a valid calendar date.')
  .openapi({ format: 'date', example: '2025-06-01' });

/** A date or a full timestamp (UTC assumed when no offset is given). */
export const DateOrDateTime = z
  .string()
  .regex(DATETIME_RE, 'Must be a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDTHH:mm:ssZ).')
  .refine((s) => isRealDate(s) && !Number.isNaN(Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s)), 'Is not a valid date.')
  .openapi({ description: 'A date (YYYY-MM-DD) or a UTC date-time (YYYY-MM-DDTHH:mm:ssZ).', example: '2025-06-01' });

export const Guid = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'Must be a GUID.')
  .openapi({ format: 'uuid' });

const Wkt = z.string().nullish().openapi({
  description: 'WKT Polygon or MultiPolygon in longitude/latitude (EPSG:4326). Give Wkt or GeoJson, never both.',
  example: 'POLYGON((13.30 52.45, 13.50 52.45, 13.50 52.56, 13.30 52.56, 13.30 52.45))',
});
const GeoJson = z
  .object({ type: z.string(), coordinates: z.array(z.any()) })
  .passthrough()
  .nullish()
  .openapi('GeoJsonGeometry', {
    description: 'GeoJSON Polygon or MultiPolygon geometry with [longitude, latitude] positions. Give Wkt or GeoJson, never both.',
  });

const ModelName = z.string().openapi({
  description: `Tasking model enum value. Display names such as "Stratus-2" are refused. Values: ${MODELS.map((m) => m.Model).join(', ')}.`,
  enum: MODELS.map((m) => m.Model),
  example: 'Stratus2',
});
const ConstellationList = z.array(z.string().openapi({ enum: [...CONSTELLATIONS] })).openapi({
  description: 'Satellite constellation values; the model\'s required constellations must be present.',
  example: ['Sentinel1', 'Sentinel2'],
});

const Aoi = { Wkt, GeoJson };

/** The end of a period: the guides name it `To` in one place and `Until` in another (contract 4.3); both are read. */
function periodEnd(nullMeans: string) {
  return {
    To: DateOrDateTime.nullish().openapi({ description: `End of the period (or give Until); ${nullMeans}` }),
    Until: DateOrDateTime.nullish().openapi({ description: 'Same as To, as other guides name it; used when To is absent.' }),
  };
}

// ---------------------------------------------------------------- requests

/** Body of POST /api/satelliteimages/geography/composite (deprecated). */
export const GeographyCompositeQuery = z
  .object({
    Wkt: z.string().openapi({ description: 'Geography in EPSG:4326 as WKT.' }),
    From: DateOrDateTime,
    ...periodEnd('one of To or Until is required.'),
  })
  .openapi('SatelliteMergedAreaQuery');

/** Body of POST /api/satelliteimages/search/available. */
export const SearchAvailableQuery = z
  .object({
    ...Aoi,
    From: DateOrDateTime,
    Until: DateOrDateTime.nullish().openapi({ description: 'End of the period; null means up to now.' }),
    To: DateOrDateTime.nullish().openapi({ description: 'Same as Until, as other guides name it; used when Until is absent.' }),
    SatelliteConstellations: ConstellationList.nullish(),
    Model: ModelName.nullish(),
  })
  .openapi('SatelliteImagerySearchQuery');

const BandnamesField = z.string().openapi({
  description: 'rgb or all alone, or a comma-separated list of B2,B3,B4,B5,B6,B7,B8,B8A,B11,B12 and indices [A_B] = (A-B)/(A+B); ndvi = [B8_B4]. Output band order follows the list.',
  example: 'B4,B3,B2,ndvi',
});
const UtmMode = z.enum(['single_utm_fully_covered', 'combined_utm', 'single_utm']);
const EpsgField = z.number().int().openapi({
  description: 'Output EPSG. This simulator renders 4326, 3857, 32601-32660, 32701-32760 and 47000 (the service picks the UTM zone of the AOI).',
  example: 32633,
});

/** Body of POST /api/satelliteimages/process/composite/available. */
export const CompositeAvailableQuery = z
  .object({
    ...Aoi,
    Date: DateOrDateTime,
    Model: ModelName,
    SatelliteConstellations: ConstellationList.nullish(),
    EpsgProjection: EpsgField.default(47000),
    Bandnames: BandnamesField.default('rgb'),
    UtmDataSelectionMode: UtmMode.default('combined_utm'),
  })
  .passthrough()
  .openapi('SatelliteMergedAreaAvailableQuery');

/** Fields that shape a composite's pixels; shared by process and, optionally, estimate. */
const compositeSettings = {
  Date: DateOrDateTime,
  Resolution: z
    .number()
    .int()
    .refine((r) => (RESOLUTIONS as readonly number[]).includes(r), `Resolution must be one of ${RESOLUTIONS.join(', ')}.`)
    .default(10)
    .openapi({ enum: [...RESOLUTIONS], description: 'Pixel size in metres.' }),
  EpsgProjection: EpsgField.default(47000),
  FileType: z.enum(['tif']).default('tif'),
  PixelSelectionMode: z.enum(['intersect', 'contained']).default('intersect').openapi({ description: 'Matched case-insensitively ("Intersect" is read as intersect).' }),
  DataType: z.enum(['INT16', 'UINT8']).default('INT16').openapi({ description: 'Nodata is -32768 for INT16 and 0 for UINT8.' }),
  UtmDataSelectionMode: UtmMode.default('combined_utm'),
  UtmGridForcePixelResolutionSize: z.boolean().default(false),
  SatelliteConstellations: ConstellationList.nullish(),
  Model: ModelName,
  Bandnames: BandnamesField.default('rgb'),
  OldPixelSelectionMode: z.boolean().default(false),
  AllowPartialImage: z.boolean().default(false),
  AutomaticOrderCreation: z.boolean().default(false).openapi({
    description: 'When the AOI/date is not covered by an order, create (and bill) a historical single-date order first.',
  }),
  UploadUrl: z.string().nullish().openapi({
    description: 'When set, the service PUTs the file to this URL and answers 201 with an empty body. This simulator only uploads to loopback hosts.',
  }),
};

/** Body of POST /api/satelliteimages/process/composite/estimate. */
export const CompositeEstimateQuery = z
  .object({
    ...Aoi,
    MiniTileGuid: Guid.nullish(),
    TileGuid: Guid.nullish(),
    Bandnames: BandnamesField.nullish(),
    Resolution: compositeSettings.Resolution.optional(),
  })
  .passthrough()
  .openapi('SatellitePreviewEstimateQuery');

/** Body of POST /api/satelliteimages/process/composite. */
export const CompositeProcessBody = z.object({ ...Aoi, ...compositeSettings }).openapi('SatelliteCompositeProcessCommand');

const tileCommon = {
  Date: DateOrDateTime,
  SatelliteConstellations: ConstellationList.nullish(),
  Model: ModelName,
  Level: z.enum(['L1C', 'L2A']).nullish().openapi({ description: 'Processing level; null means L2A.' }),
  Harmonize: z.boolean().nullish().openapi({ description: 'Harmonise radiometry across sensors; null means true.' }),
  ClipReflectance: z.boolean().nullish().openapi({ description: 'Clip reflectance to 0..10000 DN; null means false.' }),
  UploadUrl: compositeSettings.UploadUrl,
};

/** Body of POST /api/satelliteimages/process/tile. */
export const TileProcessBody = z.object({ TileGuid: Guid, ...tileCommon }).openapi('SatelliteTileProcessCommand');
/** Body of POST /api/satelliteimages/process/minitile. */
export const MiniTileProcessBody = z.object({ MiniTileGuid: Guid, ...tileCommon }).openapi('SatelliteMiniTileProcessCommand');

/** Body of POST /api/satelliteproducts/satellitezones/composite. */
export const ProductsQuery = z
  .object({
    ...Aoi,
    From: DateOrDateTime,
    ...periodEnd('one of To or Until is required.'),
    SatelliteConstellations: ConstellationList.nullish().openapi({ description: 'Only these constellations; null means all.' }),
  })
  .openapi('SatelliteProductsQuery');

/** Body of POST /api/satelliteproducts/acquisitionplans. */
export const AcquisitionPlansQuery = z
  .object({
    ...Aoi,
    From: DateOrDateTime.nullish().openapi({ description: 'Start; null means now.' }),
    ...periodEnd('null means 30 days after From.'),
    SatelliteConstellations: ConstellationList.nullish(),
  })
  .openapi('SatelliteAcquisitionPlansQuery');

/** Body of POST /api/tasking/search/tiles. */
export const TileSearchQuery = z
  .object({
    ...Aoi,
    MiniTiles: z.boolean().default(false).openapi({ description: 'true returns 3.2 km mini-tiles instead of 51.2 km tiles.' }),
    MaxResults: z.number().int().min(1).max(5000).default(1000),
  })
  .openapi('TileSearchQuery');

/** An order AOI as GeoJSON: a Polygon, MultiPolygon or GeometryCollection of them. */
const OrderGeoJson = z
  .object({ type: z.string(), coordinates: z.array(z.any()).nullish(), geometries: z.array(z.any()).nullish() })
  .passthrough()
  .nullish()
  .openapi('OrderGeoJsonGeometry', {
    description: 'GeoJSON Polygon, MultiPolygon or GeometryCollection of them, [longitude, latitude]. Each polygon is one AOI, billed by its bounding box (at least 1 km² each).',
  });

/** The order request record, for estimate and create (contract 2.5). */
const orderFields = {
  Wkt: z.string().nullish().openapi({
    description: 'WKT POLYGON, MULTIPOLYGON or GEOMETRYCOLLECTION of them, lon/lat. Each polygon is one AOI, billed by its bounding box (at least 1 km² each). Give Wkt or GeoJson, never both.',
    example: 'GEOMETRYCOLLECTION(POLYGON((13.30 52.45, 13.50 52.45, 13.50 52.56, 13.30 52.56, 13.30 52.45)))',
  }),
  GeoJson: OrderGeoJson,
  Tiles: z.array(Guid).nullish().openapi({ description: 'Tile or mini-tile mode: GUIDs from tile search (each GUID is read as the tile or mini-tile it names).' }),
  TileGuids: z.array(Guid).nullish().openapi({ description: 'Tile mode: GUIDs from tile search.' }),
  MiniTileGuids: z.array(Guid).nullish().openapi({ description: 'Mini-tile mode: GUIDs from tile search.' }),
  TileGuid: Guid.nullish().openapi({ description: 'Single-tile form of TileGuids.' }),
  MiniTileGuid: Guid.nullish().openapi({ description: 'Single-mini-tile form of MiniTileGuids.' }),
  SatelliteConstellations: ConstellationList,
  Model: ModelName,
  StorageMonths: z.number().int().min(0).max(36).default(0).openapi({ description: 'Extra months of storage beyond the first.' }),
  ApiRequests: z.number().int().min(0).max(100).default(0).openapi({ description: 'Extra downloads of the whole area included in the order.' }),
  ImageFrequency: z.number().int().openapi({ description: 'Days between images; the model sets the range (1-7).', example: 7 }),
  ReferenceDate: DateOnly.openapi({ description: 'Cadence anchor; need not lie in the period.' }),
  From: DateOnly,
  To: DateOnly.nullish().openapi({ description: 'null makes the order recurring.' }),
  Until: DateOnly.nullish().openapi({ description: 'Same as To, as other guides name it; used when To is absent.' }),
};
/** Body of POST /api/tasking/orders/estimate. */
export const OrderEstimateBody = z
  .object({ ...orderFields, SimulatedEuroUsage: z.number().min(0).nullish().openapi({ description: 'Estimate as if this much had been spent this month.' }) })
  .openapi('TaskOrderEstimateCommand');
/** Body of POST /api/tasking/orders. */
export const OrderCreateBody = z
  .object({ ...orderFields, TileDeduplication: z.boolean().default(false) })
  .openapi('TaskOrderCreateCommand');

/** Query of GET /api/tasking/orders. */
export const OrdersListQuery = z.object({
  recurringOnly: z.enum(['true', 'false']).default('false').openapi({ param: { name: 'recurringOnly', in: 'query' }, description: 'Only recurring orders (true/false in any case, e.g. True).' }),
  getExpired: z.enum(['true', 'false']).default('false').openapi({ param: { name: 'getExpired', in: 'query' }, description: 'Include cancelled and expired orders (true/false in any case).' }),
});
/** Query of GET /api/tasking/orders/details and DELETE /api/tasking/orders/cancel. */
export const OrderGuidQuery = z.object({
  taskOrderGuid: Guid.openapi({ param: { name: 'taskOrderGuid', in: 'query' } }),
});

/** Body of POST /api/billing/vouchers/redeem (the "command"). */
export const VoucherRedeemCommand = z
  .object({ VoucherCode: z.string().min(1, 'The VoucherCode field is required.').openapi({ example: 'SWATH-DEMO-50' }) })
  .openapi('VoucherRedeemCommand');

/** Path of the monthly billing operations. */
export const YearMonthParams = z.object({
  year: z.number().int().openapi({ param: { name: 'year', in: 'path' }, type: 'integer', format: 'int32', example: 2025 }),
  month: z.number().int().openapi({ param: { name: 'month', in: 'path' }, type: 'integer', format: 'int32', example: 6 }),
});

// --------------------------------------------------------------- responses

const Money = z.number().openapi({ description: 'Amount in EUR.' });
/** A calendar day in a response (YYYY-MM-DD). */
const DayOut = z.string().openapi({ format: 'date' });
const DateTimeOut = z.string().openapi({ format: 'date-time' });

/** Data of account info (both /api/account/info and /api/apikey/info). */
export const ApiKeyLimitedDto = z
  .object({
    Key: z.string().openapi({ format: 'password', 'x-secret': true, description: 'The API key of the request, echoed back as the production service does. A secret: never show, log or store it.' }),
    TenantId: z.string(),
    KeyName: z.string(),
    Plan: z.string(),
    KeyEnding: z.string().openapi({ description: 'Last four characters of the key.' }),
    CreditAmount: z.number().int().openapi({ description: 'Credit of the key in whole credits (1 credit = 1 EUR, rounded down).' }),
    EuroCreditAmount: Money.openapi({ description: 'Balance of the key in EUR.' }),
    CreditLimit: z.number().int().openapi({ description: 'How far the balance may go below zero, whole credits.' }),
    EuroCreditLimit: z.number().int().openapi({ description: 'How far the balance may go below zero, EUR.' }),
    ContactInfo: z.string(),
    Email: z.string().nullable(),
    MaxConcurrentConnections: z.number().int(),
    MaxCompositeAreaKm2: z.number().int(),
    MaxTotalBands: z.number().int(),
    EuroOverdraftLimit: Money,
    EuroBalanceCap: Money,
    EuroBalance: Money,
    CurrentMonthCosts: Money,
    NextMonthCosts: Money.openapi({ description: 'What the active recurring orders will cost next month.' }),
  })
  .openapi('ApiKeyLimitedDto');

/** Data of account settings. */
export const ApiKeySettingsDto = z
  .object({
    DefaultModel: z.string(),
    DefaultEpsgProjection: z.number().int(),
    DefaultResolution: z.number().int(),
    DefaultDataType: z.string(),
    StorageMonthsIncluded: z.number().int(),
    CreditExpiryMonths: z.number().int(),
    UploadAllowedHosts: z.array(z.string()),
    TimeZone: z.string(),
  })
  .openapi('ApiKeySettingsDto');

/** Data of the billing summary. */
export const BillingSummaryDto = z
  .object({
    Year: z.number().int(),
    Month: z.number().int(),
    CurrencyCode: z.string(),
    OpeningBalance: Money,
    EuroBalance: Money,
    OrdersTotal: Money,
    DownloadsTotal: Money,
    VouchersTotal: Money,
    OrderCount: z.number().int(),
    DownloadCount: z.number().int(),
    CurrentTierRatePerKm2: z.object({ Stratus: Money, Nimbus: Money }),
  })
  .openapi('BillingSummaryDto');

const BillingOrderRow = z
  .object({
    TaskOrderGuid: Guid,
    CreatedAt: z.string().openapi({ format: 'date-time' }),
    Model: z.string(),
    AreaKm2: z.number(),
    Recurring: z.boolean(),
    Status: z.string(),
    Cost: Money,
  })
  .openapi('BillingOrderDto');
/** Data of the month's orders. */
export const BillingOrdersListDto = z
  .object({ Year: z.number().int(), Month: z.number().int(), CurrencyCode: z.string(), Orders: z.array(BillingOrderRow), Total: Money })
  .openapi('BillingOrdersListDto');

const TransactionRow = z
  .object({
    TransactionGuid: Guid,
    Timestamp: z.string().openapi({ format: 'date-time' }),
    Kind: z.enum(['TopUp', 'Voucher', 'Order', 'Download', 'Refund']),
    Description: z.string(),
    Amount: Money,
    BalanceAfter: Money,
    Reference: z.string().nullable(),
  })
  .openapi('BillingTransactionDto');
/** Data of the month's transactions. */
export const BillingTransactionsListDto = z
  .object({ Year: z.number().int(), Month: z.number().int(), CurrencyCode: z.string(), Transactions: z.array(TransactionRow), Total: Money })
  .openapi('BillingTransactionsListDto');

/** Data of a voucher redemption. */
export const VoucherRedeemResultDto = z
  .object({ VoucherCode: z.string(), CreditAdded: Money, CurrencyCode: z.string(), EuroBalance: Money, RedeemedAt: z.string().openapi({ format: 'date-time' }) })
  .openapi('VoucherRedeemResultDto');

/** Data of the deprecated geography/composite. */
export const SatelliteMergedAreaDto = z
  .object({ Wkt: z.string().nullable(), AreaKm2: z.number(), Dates: z.array(z.string().openapi({ format: 'date' })) })
  .openapi('SatelliteMergedAreaDto');

/** Data of search/available. */
export const SatelliteImagerySearchResultsDto = z
  .object({
    ModelImageDates: z.array(
      z.object({
        Model: z.string(),
        SatelliteConstellations: z.array(z.string()),
        DatesByGeog: z.array(z.object({ Wkt: z.string(), Dates: z.array(z.string().openapi({ format: 'date' })) })),
      }),
    ),
  })
  .openapi('SatelliteImagerySearchResultsDto');

/** Data of composite/available. */
export const SatelliteMergedAreaAvailableDto = z
  .object({
    FullyAvailable: z.boolean(),
    PartiallyAvailable: z.boolean(),
    OrdersCoverPolygon: z.boolean(),
    DataAvailableForUser: z.boolean(),
    PolygonInDataArea: z.boolean(),
    AllImagesPredicted: z.boolean(),
    AnyImageWithinStorageMonths: z.boolean(),
    RequestedAreaKm2: z.number(),
    AvailableAreaKm2: z.number(),
  })
  .openapi('SatelliteMergedAreaAvailableDto');

/** Data of composite/estimate. */
export const SatellitePreviewEstimateDto = z
  .object({
    AreaEstimateKm2: z.number(),
    CreditEstimate: Money,
    CurrencyCode: z.string(),
    IncludedInOrder: z.boolean().openapi({ description: 'true when an order\'s included download covers it (CreditEstimate is then 0).' }),
    BandCount: z.number().int(),
  })
  .openapi('SatellitePreviewEstimateDto');

const GeoItem = {
  SatelliteConstellation: z.string(),
  Wkt: z.string(),
  Date: z.string().openapi({ format: 'date' }),
};
/** Data of satellitezones/composite. */
export const SatelliteProductSatelliteCompositeDto = z
  .object({
    Products: z.array(z.object({ ProductId: z.string(), ...GeoItem, CloudCoverPercent: z.number(), TileGuid: Guid })),
    Truncated: z.boolean(),
  })
  .openapi('SatelliteProductSatelliteCompositeDto');

/** Data of acquisitionplans. */
export const SatelliteAcquisitionPlansDto = z
  .object({
    AcquisitionPlans: z.array(z.object({ PlanId: z.string(), ...GeoItem, Orbit: z.number().int(), Direction: z.enum(['Ascending', 'Descending']) })),
    Truncated: z.boolean(),
  })
  .openapi('SatelliteAcquisitionPlansDto');

/** Data of the model list. */
export const TaskingModelListDto = z
  .object({
    TaskingModels: z.array(
      z.object({
        Model: z.string(),
        SupportedSatelliteConstellations: z.array(z.object({ SatelliteConstellation: z.string(), Optional: z.boolean() })),
      }),
    ),
  })
  .openapi('TaskingModelListDto');

/** Data of tile search. */
export const TileSearchResultsDto = z
  .object({
    Tiles: z.array(z.object({
      Guid, MiniTile: z.boolean(),
      Epsg: z.string().openapi({ description: 'EPSG code of the tile\'s UTM zone, as text.', example: '32633' }),
      DataGeogWkt: z.string(), AreaKm2: z.number(),
    })),
    Truncated: z.boolean(),
  })
  .openapi('TileSearchResultsDto');

/** Cost breakdown of an order estimate. */
const TaskOrderEstimateCostsDto = z
  .object({
    CurrencyCode: z.string(),
    CurrentMonthOrderCostEstimate: Money.openapi({ description: 'Charged at creation: the historical images plus this month\'s recurring ones.' }),
    CurrentMonthStorageCosts: Money.openapi({ description: 'Storage is included in the per-km² price here: always 0.' }),
    NextMonthOrderCostEstimate: Money.openapi({ description: 'A recurring order\'s cost per month; 0 for a historical one.' }),
    NextMonthStorageCosts: Money,
    HistoricOrderCostEstimate: Money,
    HistoricStorageCosts: Money,
    RecurringOrderCostEstimate: Money,
    RecurringStorageCosts: Money,
  })
  .openapi('TaskOrderEstimateCostsDto');

/** Data of an order estimate. */
export const TaskOrderEstimateDto = z
  .object({
    StorageMonths: z.number().int(),
    ApiRequests: z.number().int(),
    Model: z.string(),
    SatelliteConstellations: z.array(z.string()),
    CancellationDate: DayOut.openapi({ description: 'Last day to cancel: a recurring order can be stopped before 00:00 UTC on this day (the 1st of next month); a historical one only today, while in Review.' }),
    AreaKm2: z.number().openapi({ description: 'Billed area: every AOI\'s bounding box, at least 1 km² each.' }),
    AreaKm2BeforeMinimum1Km2PerAoi: z.number().openapi({ description: 'The same bounding boxes before the 1 km² minimum per AOI.' }),
    AreasOfInterestWkt: z.string().openapi({ description: 'The billed AOIs (bounding boxes, or tiles) as a WKT GEOMETRYCOLLECTION.' }),
    Tiles: z.array(Guid).nullable().openapi({ description: 'The tile and mini-tile GUIDs of a tile order; null for a polygon order.' }),
    CurrencyCode: z.string(),
    PricePerKm2: Money,
    CurrentMonthCost: Money.openapi({ description: 'What this order costs this month (charged at creation).' }),
    NextMonthCost: Money.openapi({ description: 'What this order costs next month (0 unless recurring).' }),
    Costs: TaskOrderEstimateCostsDto,
    TotalHistoricCost: Money,
    NextMonthRecurringCost: Money,
    CurrentMonthCosts: Money.openapi({ description: 'The key\'s spend so far this month (sets the tier).' }),
    RecurringCostsEstimate: Money.nullable().openapi({ description: 'Monthly cost of a recurring order; null for historical.' }),
    HistoricImageDates: z.array(DayOut),
    RecurringImageDates: z.array(DayOut),
    ImageDates: z.array(DayOut),
  })
  .openapi('TaskOrderEstimateDto');

/** One order as listed. */
export const TaskOrderDto = z
  .object({
    TaskOrderGuid: Guid,
    OrderingProcessStatus: z.enum(['Review', 'Preparing', 'AwaitingSatelliteProducts', 'Processing', 'Predicting', 'Completed', 'UpToDate', 'Canceled']),
    BillingCycle: z.enum(['OneTime', 'Monthly']).openapi({ description: 'Monthly for a recurring order, OneTime for a historical one.' }),
    CreatedAt: DateTimeOut,
    TaskOrderAreaKm2: z.number(),
    From: DayOut,
    To: DayOut.nullable().openapi({ description: 'null for a recurring order.' }),
    Model: z.string(),
    SatelliteConstellations: z.array(z.string()),
    ImageFrequency: z.number().int(),
    ReferenceDate: DayOut,
    StorageMonths: z.number().int(),
    ApiRequests: z.number().int(),
    Wkt: z.string().nullable(),
    Tiles: z.array(Guid).nullable().openapi({ description: 'Tile GUIDs of a tile order; null otherwise.' }),
    MiniTiles: z.array(Guid).nullable().openapi({ description: 'Mini-tile GUIDs of a mini-tile order; null otherwise.' }),
    TotalCost: Money,
    RenewalStopped: z.boolean(),
    Expired: z.boolean(),
  })
  .openapi('TaskOrderDto');
/** Data of the orders list. */
export const TaskOrderListDto = z.object({ TaskOrders: z.array(TaskOrderDto) }).openapi('TaskOrderListDto');
/** Data of order details. */
export const TaskOrderDetailsDto = z.object({
  // Spelled out (not extend) so the spec has one flat object instead of an allOf.
  ...TaskOrderDto.shape,
  ImageDates: z.array(z.object({ Date: z.string().openapi({ format: 'date' }), Available: z.boolean() })),
  StatusHistory: z.array(z.object({ Status: z.string(), At: z.string().openapi({ format: 'date-time' }) })),
  CancellationDate: z.string().nullable().openapi({ format: 'date-time' }),
  DeduplicatedTiles: z.array(Guid),
}).openapi('TaskOrderDetailsDto');
/** Data of a cancellation. */
export const TaskOrderCancelResultDto = z
  .object({ TaskOrderGuid: Guid, Result: z.enum(['Canceled', 'RenewalStopped']), OrderingProcessStatus: z.string(), RefundedAmount: Money, EffectiveTo: z.string().nullable() })
  .openapi('TaskOrderCancelResultDto');
