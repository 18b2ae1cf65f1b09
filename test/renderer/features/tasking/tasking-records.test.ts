import { describe, expect, it } from 'vitest';
import { extractTiles, keyByName, orderMatchesRequest, prefillFromRow, rowsOf, summarizeOrder } from '../../../../renderer/src/features/tasking/model/tasking-records';

const G1 = 'c0065a83-eea8-477e-bdeb-c6c8235a4dbb';
const T1 = '11111111-1111-4111-8111-111111111111';
const T2 = '22222222-2222-4222-8222-222222222222';

describe('prefill by name', () => {
  it('fills each parameter from the row property of the same name, case-insensitively', () => {
    const row = { TaskOrderGuid: G1, OrderingProcessStatus: 'Review', Tiles: [T1] };
    expect(prefillFromRow(['taskOrderGuid'], row)).toEqual({ taskOrderGuid: G1 });
    expect(prefillFromRow(['TASKORDERGUID', 'orderingprocessstatus'], row)).toEqual({ TASKORDERGUID: G1, orderingprocessstatus: 'Review' });
  });

  it('ignores separators, leaves out parameters without a namesake and never passes objects or arrays', () => {
    const row = { task_order_guid: G1, Tiles: [T1], Meta: { a: 1 }, Note: null };
    expect(prefillFromRow(['taskOrderGuid', 'tiles', 'meta', 'note', 'other'], row)).toEqual({ taskOrderGuid: G1 });
  });

  it('fills the one GUID parameter without a namesake with the row\'s GUID', () => {
    const row = { etag: 'abc', tileIds: [T1], orderId: G1, state: 'Review' };
    expect(prefillFromRow(['taskOrderGuid'], row, ['taskOrderGuid'])).toEqual({ taskOrderGuid: G1 });
    expect(prefillFromRow(['state', 'id'], row, ['id'])).toEqual({ state: 'Review', id: G1 });
    // Two GUID parameters: which one is the order cannot be told, so neither is guessed.
    expect(prefillFromRow(['a', 'b'], row, ['a', 'b'])).toEqual({});
    // A namesake still wins.
    expect(prefillFromRow(['orderId'], { ...row, other: T2 }, ['orderId'])).toEqual({ orderId: G1 });
  });

  it('prefers an exact name over a case-insensitive one', () => {
    expect(keyByName({ ID: 'a', id: 'b' }, 'id')).toBe('id');
    expect(keyByName({ Id: 'a' }, 'ID')).toBe('Id');
  });
});

describe('order records read generically', () => {
  const historical = {
    TaskOrderGuid: G1, OrderingProcessStatus: 'Completed', TaskOrderAreaKm2: 526.89, From: '2025-07-25', To: '2025-11-19', Model: 'Stratus2',
    SatelliteConstellations: ['Sentinel1', 'Sentinel2'], ImageFrequency: 5, ReferenceDate: '2025-07-25', Wkt: 'POLYGON((13 52, 14 52, 14 53, 13 52))', Tiles: [], MiniTiles: [],
  };

  it('finds id, status, period, model, area and geometry', () => {
    expect(summarizeOrder(historical)).toMatchObject({
      id: G1, idKey: 'TaskOrderGuid', status: 'Completed', from: '2025-07-25', to: '2025-11-19', recurring: false, model: 'Stratus2',
      areaKm2: 526.89, imageFrequency: 5, referenceDate: '2025-07-25', ended: false,
    });
    expect(summarizeOrder(historical).geometry).toMatch(/^POLYGON/);
  });

  it('an empty To means recurring; a missing To means unknown', () => {
    expect(summarizeOrder({ ...historical, To: null }).recurring).toBe(true);
    const { To: _to, ...noTo } = historical;
    expect(summarizeOrder(noTo).recurring).toBeNull();
  });

  it('works with other names: lower case, start/end, state', () => {
    const s = summarizeOrder({ id: G1, state: 'Canceled', startDate: '2025-01-01', endDate: null, model: 'Nimbus', tileGuids: [T1], deduplicatedTiles: [T2] });
    expect(s).toMatchObject({ id: G1, status: 'Canceled', from: '2025-01-01', recurring: true, model: 'Nimbus', tiles: [T1], ended: true });
  });

  it('finds the rows of a list response wherever they are', () => {
    expect(rowsOf({ Orders: [historical] })).toHaveLength(1);
    expect(rowsOf([historical, historical])).toHaveLength(2);
    expect(rowsOf({ Result: { Items: [] } })).toEqual([]);
  });

  it('recognises the order a request created, also when the service lists only non-deduplicated tiles', () => {
    const req = { TileGuids: [T1, T2], Model: 'Stratus2', From: '2025-01-01', To: null, ImageFrequency: 7, ReferenceDate: '2025-01-01' };
    const row = summarizeOrder({ id: G1, Model: 'Stratus2', From: '2025-01-01', To: null, ImageFrequency: 7, Tiles: [T2] });
    expect(orderMatchesRequest(row, req)).toBe(true);
    expect(orderMatchesRequest(row, { ...req, ImageFrequency: 5 })).toBe(false);
    expect(orderMatchesRequest(row, { ...req, To: '2025-02-01' })).toBe(false);
    expect(orderMatchesRequest(summarizeOrder({ id: G1, From: '2025-01-01' }), req)).toBe(false);
  });
});

describe('tile search results', () => {
  it('reads GUID, kind, EPSG and footprint by value', () => {
    const data = { Tiles: [
      { Guid: T1, MiniTile: false, Epsg: 32633, DataGeogWkt: 'POLYGON((13 52, 13.7 52, 13.7 52.5, 13 52))', AreaKm2: 2621.44 },
      { Guid: T2, MiniTile: true, Epsg: 32633, DataGeogWkt: 'POLYGON((13 52, 13.1 52, 13.1 52.1, 13 52))' },
      { Guid: T2, MiniTile: true },
    ], Truncated: false };
    const tiles = extractTiles(data, false);
    expect(tiles).toHaveLength(2);
    expect(tiles[0]).toMatchObject({ guid: T1, mini: false, epsg: 32633, areaKm2: 2621.44 });
    expect(tiles[1]).toMatchObject({ guid: T2, mini: true });
    expect(tiles[1]!.footprint).toMatch(/^POLYGON/);
  });

  it('takes the kind from the request when a row does not say', () => {
    expect(extractTiles({ Items: [{ Id: T1, Srid: '3857' }] }, true)[0]).toMatchObject({ mini: true, epsg: 3857 });
  });
});

describe('estimate read generically', async () => {
  const { areaOfEstimate, dateGroups, formatAmount, moneyLines } = await import('../../../../renderer/src/features/tasking/model/tasking-estimate');
  const estimate = {
    AreaKm2: 12.5, AreaKm2BeforeMinimum1Km2PerAoi: 12.4567, CurrencyCode: 'EUR', PricePerKm2: 0.2, TotalHistoricCost: 1234.5, RecurringCostsEstimate: null,
    CancellationDate: null, HistoricImageDates: ['2025-01-01', '2025-01-08'], RecurringImageDates: ['2025-01-15'], ImageDates: ['2025-01-01', '2025-01-08', '2025-01-15'],
    Costs: { CurrencyCode: 'USD', Total: 3 },
  };

  it('finds every date list, smallest first', () => {
    expect(dateGroups(estimate).map((g) => [g.name, g.dates.length])).toEqual([['RecurringImageDates', 1], ['HistoricImageDates', 2], ['ImageDates', 3]]);
  });

  it('finds money amounts with their currency and the billed area', () => {
    expect(moneyLines(estimate).map((l) => [l.key, formatAmount(l)])).toEqual([['TotalHistoricCost', '1,234.50 EUR'], ['Costs.Total', '3.00 USD']]);
    expect(areaOfEstimate(estimate)).toEqual({ key: 'AreaKm2', value: 12.5 });
  });
});
