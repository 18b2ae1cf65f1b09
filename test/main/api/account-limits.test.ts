import { describe, expect, it } from 'vitest';
import { accountLimits } from '../../../main/api/account-limits.js';
import { shapeStyle } from '../../../simulator/shapes/index.js';
import { startTestSim } from '../../simulator/helpers.js';

describe('account limits read by what the fields say', () => {
  it('reads production and other namings alike, and null where none is given', () => {
    expect(accountLimits({ MaxConcurrentConnections: 8, MaxCompositeAreaKm2: 2500, MaxTotalBands: 12, EuroBalance: 3 }))
      .toEqual({ maxConcurrentConnections: 8, maxCompositeAreaKm2: 2500, maxTotalBands: 12 });
    expect(accountLimits({ max_concurrent_connections: 4, 'max-composite-area-sq-km': 100, maxBands: 3 }))
      .toEqual({ maxConcurrentConnections: 4, maxCompositeAreaKm2: 100, maxTotalBands: 3 });
    expect(accountLimits({ MaxTotalBands: '12', balance: 1 })).toEqual({ maxConcurrentConnections: null, maxCompositeAreaKm2: null, maxTotalBands: null });
    expect(accountLimits(null)).toEqual({ maxConcurrentConnections: null, maxCompositeAreaKm2: null, maxTotalBands: null });
  });

  it('finds the same limits in both answer styles of the simulator', async () => {
    for (const shapes of ['production', 'variant']) {
      expect(shapeStyle(shapes).name).toBe(shapes);
      const t = await startTestSim({ shapes });
      try {
        const info = await t.call('GET', '/api/account/info');
        expect(info.status).toBe(200);
        expect(accountLimits(info.json.Data)).toEqual({ maxConcurrentConnections: 8, maxCompositeAreaKm2: 2500, maxTotalBands: 12 });
      } finally {
        await t.close();
      }
    }
  });
});
