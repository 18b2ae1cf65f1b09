import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../main/api';
import { Estimator, type EstimateClient } from '../../../main/spend';

// Main's own estimates: kept per profile and exact request for a minute, asked again when the
// analyst asks explicitly, and never shared across a cancellation.

function client(answer: (body: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>) {
  const calls: Record<string, unknown>[] = [];
  const c = {
    concurrency: 2,
    account: { MaxCompositeAreaKm2: 2500, MaxTotalBands: 12 },
    accountInfo: async () => ({}),
    compositeEstimate: (body: Record<string, unknown>, signal: AbortSignal) => (calls.push(body), answer(body, signal)),
    estimateOrder: async (payload: string) => (calls.push({ payload }), { estimate: { CurrentMonthCost: 3 }, payload }),
  } as unknown as EstimateClient;
  return { c, calls };
}

describe('Estimator', () => {
  it('keeps an answer per profile and exact request for a minute; an explicit estimate asks again', async () => {
    const clock = { now: 0 };
    const e = new Estimator(() => clock.now);
    const { c, calls } = client(async () => ({ CreditEstimate: 2, AreaEstimateKm2: 4 }));
    const signal = new AbortController().signal;
    await e.composite(c, 'p1', { TileGuid: 'a' }, signal);
    await e.composite(c, 'p1', { TileGuid: 'a' }, signal);
    expect(calls).toHaveLength(1);
    await e.composite(c, 'p2', { TileGuid: 'a' }, signal);
    await e.composite(c, 'p1', { TileGuid: 'b' }, signal);
    expect(calls).toHaveLength(3);
    await e.composite(c, 'p1', { TileGuid: 'a' }, signal, true);
    expect(calls).toHaveLength(4);
    clock.now += 61_000;
    await e.composite(c, 'p1', { TileGuid: 'a' }, signal);
    expect(calls).toHaveLength(5);
    expect(await e.orderCost(c, 'p1', '{"Wkt":"x"}', signal)).toEqual({ state: 'known', eur: 3 });
  });

  it('a kept estimate another caller cancelled is asked again for the one still waiting', async () => {
    const e = new Estimator();
    const { c, calls } = client((_body, signal) => new Promise((resolve, reject) => {
      if (calls.length > 1) resolve({ CreditEstimate: 1, AreaEstimateKm2: 1 });
      else signal.addEventListener('abort', () => reject(new ApiError('cancelled', 'The request was cancelled.')), { once: true });
    }));
    const first = new AbortController();
    const a = e.composite(c, 'p1', { TileGuid: 'a' }, first.signal);
    const b = e.composite(c, 'p1', { TileGuid: 'a' }, new AbortController().signal);
    first.abort();
    await expect(a).rejects.toMatchObject({ kind: 'cancelled' });
    await expect(b).resolves.toEqual({ CreditEstimate: 1, AreaEstimateKm2: 1 });
    expect(calls).toHaveLength(2);
  });

  it('a composite that lets the service order on its own is never priced', async () => {
    const { c, calls } = client(async () => ({ CreditEstimate: 0, AreaEstimateKm2: 1 }));
    const cost = await new Estimator().downloadCost(c, 'p1', { kind: 'composite', request: { Wkt: 'POLYGON((13.4 52.5, 13.43 52.5, 13.43 52.52, 13.4 52.52, 13.4 52.5))', Date: '2026-11-01', Model: 'Stratus2', Resolution: 80, EpsgProjection: 32633, Bandnames: 'B4,B8', AutomaticOrderCreation: true } }, new AbortController().signal);
    expect(cost).toMatchObject({ state: 'unknown', reason: expect.stringMatching(/AutomaticOrderCreation/) });
    expect(calls).toHaveLength(0);
  });
});
