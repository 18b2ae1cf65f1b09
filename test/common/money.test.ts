import { describe, expect, it } from 'vitest';
import { downloadCost, orderCost, sumCosts } from '../../common/money';

// Money is recognised by what a field is, in either answer style; what cannot be read is never 0.

describe('downloadCost (composite/estimate answers)', () => {
  it('reads the one money field of either style', () => {
    expect(downloadCost({ AreaEstimateKm2: 4.7, CreditEstimate: 1.23, CurrencyCode: 'EUR', IncludedInOrder: false, BandCount: 2 })).toEqual({ state: 'known', eur: 1.23 });
    expect(downloadCost({ traceId: 'x', bandCount: 2, includedInOrder: true, currency: 'EUR', priceEur: 0, areaSqKm: 4.7 })).toEqual({ state: 'known', eur: 0 });
  });

  it('no money field, another currency or a non-number is unknown or invalid, never 0', () => {
    expect(downloadCost({ AreaEstimateKm2: 4.7, BandCount: 2 })).toMatchObject({ state: 'unknown' });
    expect(downloadCost({ CreditEstimate: 5, CurrencyCode: 'USD' })).toMatchObject({ state: 'unknown', reason: expect.stringMatching(/USD/) });
    expect(downloadCost({ CreditEstimate: '900' })).toMatchObject({ state: 'invalid' });
    expect(downloadCost(null)).toMatchObject({ state: 'unknown' });
  });

  it('a negative amount or several that disagree are invalid; several that agree are one', () => {
    expect(downloadCost({ CreditEstimate: -5 })).toMatchObject({ state: 'invalid', reason: expect.stringMatching(/negative/) });
    expect(downloadCost({ VoucherCredit: 0, CreditEstimate: 900 })).toMatchObject({ state: 'invalid', reason: expect.stringMatching(/several/) });
    expect(downloadCost({ CreditEstimate: 2, priceEur: 2 })).toEqual({ state: 'known', eur: 2 });
  });
});

describe('orderCost (orders/estimate answers)', () => {
  const production = {
    CurrencyCode: 'EUR', PricePerKm2: 2.1, AreaKm2: 4.7, CurrentMonthCost: 39.48, NextMonthCost: 0, TotalHistoricCost: 39.48, CurrentMonthCosts: 812.5,
    Costs: { CurrencyCode: 'EUR', CurrentMonthOrderCostEstimate: 39.48, CurrentMonthStorageCosts: 0, HistoricOrderCostEstimate: 39.48 },
  };
  const variant = {
    currency: 'EUR', pricePerKm2: 2.1, areaSqKm: 4.7, currentMonthCost: 39.48, nextMonthCost: 0, totalHistoricCost: 39.48, currentMonthCosts: 812.5,
    costBreakdown: { currency: 'EUR', currentMonthOrderCostEstimate: 39.48, historicOrderCostEstimate: 39.48 }, traceId: 'abc',
  };

  it("reads this month's cost of the order in either style, never the account's spend so far", () => {
    expect(orderCost(production)).toEqual({ state: 'known', eur: 39.48 });
    expect(orderCost(variant)).toEqual({ state: 'known', eur: 39.48 });
  });

  it('disagreeing, negative or missing figures are not a cost', () => {
    expect(orderCost({ ...production, CurrentMonthCost: 1 })).toMatchObject({ state: 'invalid' });
    expect(orderCost({ CurrentMonthCost: -3 })).toMatchObject({ state: 'invalid' });
    expect(orderCost({ CurrentMonthCosts: 812.5, Note: 'free' })).toMatchObject({ state: 'unknown' });
    expect(orderCost({ TotalCost: 12, CurrencyCode: 'EUR' })).toEqual({ state: 'known', eur: 12 });
  });
});

it('a sum is unknown or invalid when one part is', () => {
  expect(sumCosts([{ state: 'known', eur: 1.25 }, { state: 'known', eur: 2 }])).toEqual({ state: 'known', eur: 3.25 });
  expect(sumCosts([{ state: 'known', eur: 1 }, { state: 'unknown', reason: 'x' }])).toMatchObject({ state: 'unknown' });
  expect(sumCosts([{ state: 'unknown', reason: 'x' }, { state: 'invalid', reason: 'y' }])).toMatchObject({ state: 'invalid' });
});
