import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { z, type ZodType } from 'zod';
import * as S from './schemas.js';
import type { OperationDef } from './operation.js';
import type { ShapeStyle } from './shapes/wire.js';

export type { OperationDef } from './operation.js';

/** The contract version the simulator implements. */
export const CONTRACT_VERSION = '1.0.0';

/** Every operation of service-contract.md section 4, in contract order, plus the production service's newer account-info path. */
export const OPERATIONS: OperationDef[] = [
  { operationId: 'Account_GetInfo', method: 'get', path: '/api/account/info', tag: 'Account', summary: 'Information for the API key, including request limits. Echoes the key (Key), as the production service does.', response: S.ApiKeyLimitedDto, envelope: 'ServiceResultOfApiKeyLimitedDto' },
  { operationId: 'ApiKey_GetInfo', method: 'get', path: '/api/apikey/info', tag: 'Account', summary: 'The same account information at the production service\'s newer path.', response: S.ApiKeyLimitedDto, envelope: 'ServiceResultOfApiKeyLimitedDto' },
  { operationId: 'Account_GetSettings', method: 'get', path: '/api/account/settings', tag: 'Account', summary: 'Settings of the account.', response: S.ApiKeySettingsDto, envelope: 'ServiceResultOfApiKeySettingsDto' },
  { operationId: 'Billing_GetSummary', method: 'get', path: '/api/billing/summary', tag: 'Billing', summary: 'Billing overview of the current month (UTC).', response: S.BillingSummaryDto, envelope: 'ServiceResultOfBillingSummaryDto' },
  { operationId: 'Billing_GetOrders', method: 'get', path: '/api/billing/orders/{year}-{month}', tag: 'Billing', summary: 'Orders and their costs for a month. year 2000-2100, month 1-12.', params: S.YearMonthParams, response: S.BillingOrdersListDto, envelope: 'ServiceResultOfBillingOrdersListDto' },
  { operationId: 'Billing_GetTransactions', method: 'get', path: '/api/billing/transactions/{year}-{month}', tag: 'Billing', summary: 'Itemized Euro balance transactions for a month. year 2000-2100, month 1-12.', params: S.YearMonthParams, response: S.BillingTransactionsListDto, envelope: 'ServiceResultOfBillingTransactionsListDto' },
  { operationId: 'Billing_RedeemVoucher', method: 'post', path: '/api/billing/vouchers/redeem', tag: 'Billing', summary: 'Redeems a voucher; its credit is added to the API key once.', body: S.VoucherRedeemCommand, bodyName: 'command', response: S.VoucherRedeemResultDto, envelope: 'ServiceResultOfVoucherRedeemResultDto' },
  { operationId: 'SatelliteImages_GeographyComposite', method: 'post', path: '/api/satelliteimages/geography/composite', tag: 'SatelliteImages', summary: 'Composite area with dates of available cloud-less imagery (deprecated: use search/available).', body: S.GeographyCompositeQuery, response: S.SatelliteMergedAreaDto, envelope: 'ServiceResultOfSatelliteMergedAreaDto', deprecated: true },
  { operationId: 'SatelliteImages_SearchAvailable', method: 'post', path: '/api/satelliteimages/search/available', tag: 'SatelliteImages', summary: 'Intersection of the geography with ordered areas holding imagery in the period.', body: S.SearchAvailableQuery, response: S.SatelliteImagerySearchResultsDto, envelope: 'ServiceResultOfSatelliteImagerySearchResultsDto' },
  { operationId: 'SatelliteImages_CompositeAvailable', method: 'post', path: '/api/satelliteimages/process/composite/available', tag: 'SatelliteImages', summary: 'Whether one exact single-date composite request can be fulfilled.', body: S.CompositeAvailableQuery, response: S.SatelliteMergedAreaAvailableDto, envelope: 'ServiceResultOfSatelliteMergedAreaAvailableDto' },
  { operationId: 'SatelliteImages_CompositeEstimate', method: 'post', path: '/api/satelliteimages/process/composite/estimate', tag: 'SatelliteImages', summary: 'Download credit estimate.', body: S.CompositeEstimateQuery, response: S.SatellitePreviewEstimateDto, envelope: 'ServiceResultOfSatellitePreviewEstimateDto' },
  { operationId: 'SatelliteImages_ProcessComposite', method: 'post', path: '/api/satelliteimages/process/composite', tag: 'SatelliteImages', summary: 'Composite GeoTIFF (200 body), or 201 with an empty body after a PUT to UploadUrl.', body: S.CompositeProcessBody, response: 'binary' },
  { operationId: 'SatelliteImages_ProcessTile', method: 'post', path: '/api/satelliteimages/process/tile', tag: 'SatelliteImages', summary: 'Tile GeoTIFF (bands B2,B3,B4,B8 at 10 m in the tile\'s UTM zone).', body: S.TileProcessBody, response: 'binary' },
  { operationId: 'SatelliteImages_ProcessMiniTile', method: 'post', path: '/api/satelliteimages/process/minitile', tag: 'SatelliteImages', summary: 'Mini-tile GeoTIFF (bands B2,B3,B4,B8 at 10 m).', body: S.MiniTileProcessBody, response: 'binary' },
  { operationId: 'SatelliteProducts_SatelliteZonesComposite', method: 'post', path: '/api/satelliteproducts/satellitezones/composite', tag: 'SatelliteProducts', summary: 'Satellite products intersecting the geography and internal tiles.', body: S.ProductsQuery, response: S.SatelliteProductSatelliteCompositeDto, envelope: 'ServiceResultOfSatelliteProductSatelliteCompositeDto' },
  { operationId: 'SatelliteProducts_AcquisitionPlans', method: 'post', path: '/api/satelliteproducts/acquisitionplans', tag: 'SatelliteProducts', summary: 'Planned acquisitions intersecting the geography.', body: S.AcquisitionPlansQuery, response: S.SatelliteAcquisitionPlansDto, envelope: 'ServiceResultOfSatelliteAcquisitionPlansDto' },
  { operationId: 'Tasking_GetModels', method: 'get', path: '/api/tasking/models', tag: 'Tasking', summary: 'Tasking models and their satellite constellations.', response: S.TaskingModelListDto, envelope: 'ServiceResultOfTaskingModelListDto' },
  { operationId: 'Tasking_SearchTiles', method: 'post', path: '/api/tasking/search/tiles', tag: 'Tasking', summary: 'Tiles (51.2 km) or mini-tiles (3.2 km) intersecting the geography.', body: S.TileSearchQuery, response: S.TileSearchResultsDto, envelope: 'ServiceResultOfTileSearchResultsDto' },
  { operationId: 'Tasking_ListOrders', method: 'get', path: '/api/tasking/orders', tag: 'Tasking', summary: 'Created orders.', query: S.OrdersListQuery, response: S.TaskOrderListDto, envelope: 'ServiceResultOfTaskOrderListDto' },
  { operationId: 'Tasking_GetOrderDetails', method: 'get', path: '/api/tasking/orders/details', tag: 'Tasking', summary: 'Details of one order.', query: S.OrderGuidQuery, response: S.TaskOrderDetailsDto, envelope: 'ServiceResultOfTaskOrderDetailsDto' },
  { operationId: 'Tasking_EstimateOrder', method: 'post', path: '/api/tasking/orders/estimate', tag: 'Tasking', summary: 'Estimated cost and candidate dates of an order.', body: S.OrderEstimateBody, response: S.TaskOrderEstimateDto, envelope: 'ServiceResultOfTaskOrderEstimateDto' },
  { operationId: 'Tasking_CreateOrder', method: 'post', path: '/api/tasking/orders', tag: 'Tasking', summary: 'Creates the order; the body must equal the last estimated body (plus TileDeduplication).', body: S.OrderCreateBody, response: S.TaskOrderDto, envelope: 'ServiceResultOfTaskOrderDto' },
  { operationId: 'Tasking_CancelOrder', method: 'delete', path: '/api/tasking/orders/cancel', tag: 'Tasking', summary: 'Cancels an order in Review, or stops a recurring order\'s renewal before 00:00 UTC on the 1st of next month.', query: S.OrderGuidQuery, response: S.TaskOrderCancelResultDto, envelope: 'ServiceResultOfTaskOrderCancelResultDto' },
];

const errorFields = { Message: z.string(), Code: z.number().int().openapi({ description: '992 validation; 993 invalid request; 994 not enough credit; 1002 no imagery; 1003 too many concurrent requests; 1004 area too large; 1005 too many bands; 1006 not covered by an order.' }) };
const ErrorInfo = z.object(errorFields).openapi('ServiceError');
// Inline rather than a nullable $ref, which OpenAPI 3.0 can only write as an allOf that JSON Schema readers take as non-null.
const NoError = z.object(errorFields).nullable().openapi({ description: 'null on success.' });

/** Builds the OpenAPI 3 document, version 1.0.0, from an answer style's operations. */
export function buildSpecification(serverUrl: string | undefined, style: ShapeStyle): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', { type: 'apiKey', in: 'header', name: 'x-api-key' });
  const failure = registry.register(
    'ServiceResultOfValidationErrors',
    z.object({
      Data: z.record(z.string(), z.array(z.string())).nullable().openapi({ description: 'Property name to reasons (validation), or null.' }),
      Succeeded: z.boolean(),
      Error: ErrorInfo,
    }),
  );
  const errorResponses = {
    400: { description: 'Validation or workflow failure (Code 992 for validation).', content: { 'application/json': { schema: failure } } },
    401: { description: 'Missing or unknown API key.', content: { 'application/json': { schema: failure } } },
    403: { description: 'Revoked key or wrong account context.', content: { 'application/json': { schema: failure } } },
    404: { description: 'Path or identifier wrong.', content: { 'application/json': { schema: failure } } },
    429: { description: 'Too many concurrent requests (Code 1003); honour Retry-After.', headers: { 'Retry-After': { schema: { type: 'integer' as const } } }, content: { 'application/json': { schema: failure } } },
  };
  const envelopes = new Map<string, ZodType>();
  for (const op of style.operations) {
    const request: Record<string, unknown> = {};
    if (op.body) {
      request.body = { required: true, description: op.bodyName, content: { 'application/json': { schema: op.body } } };
    }
    if (op.query) request.query = op.query;
    if (op.params) request.params = op.params;
    let ok: Record<string, unknown>;
    if (op.response === 'binary') {
      ok = {
        200: {
          description: 'GeoTIFF (Cloud Optimized when larger than 512 px). Content-Disposition carries the file name.',
          headers: { 'Content-Disposition': { schema: { type: 'string' } } },
          content: { 'image/tiff': { schema: { type: 'string', format: 'binary' } } },
        },
        201: { description: 'Uploaded to UploadUrl; empty body.' },
      };
    } else {
      let envelope = envelopes.get(op.envelope!);
      if (!envelope) {
        envelope = registry.register(
          op.envelope!,
          z.object({ Data: op.response, Succeeded: z.boolean(), Error: NoError }),
        );
        envelopes.set(op.envelope!, envelope);
      }
      ok = { 200: { description: 'Success envelope.', content: { 'application/json': { schema: envelope } } } };
    }
    registry.registerPath({
      method: op.method,
      path: op.path,
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      deprecated: op.deprecated || undefined,
      security: [{ ApiKey: [] }],
      request: request as never,
      responses: { ...ok, ...errorResponses } as never,
    });
  }
  const generator = new OpenApiGeneratorV3(registry.definitions);
  return generator.generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Satellite Imagery Ordering and Retrieval Service (Swath simulator)',
      version: CONTRACT_VERSION,
      'x-answer-style': style.name,
      description: `Local simulator of the service contract. Fields the contract leaves open are this simulator's choice and are published here. ${style.description}`,
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
  }) as unknown as Record<string, unknown>;
}
