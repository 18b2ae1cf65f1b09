import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DEMO_ACCOUNT_KEY, DEMO_SERVICE_LABEL, startEmbeddedService, type StartSimulator } from '../../../main/app/embedded-service';

describe('startEmbeddedService', () => {
  it('starts the simulator on a random loopback port with its state under userData', async () => {
    const close = vi.fn(async () => undefined);
    const start = vi.fn<StartSimulator>(async () => ({ url: 'http://127.0.0.1:43210', port: 43210, close }));
    const service = await startEmbeddedService('/data/Swath', start);

    expect(start).toHaveBeenCalledOnce();
    expect(start.mock.calls[0]![0]).toMatchObject({
      port: 0,
      host: '127.0.0.1',
      statePath: join('/data/Swath', 'demo-state.json'),
      cacheDir: join('/data/Swath', 'sim-cache'),
    });
    expect(service.endpoint).toEqual({
      label: 'Demo service (offline)',
      baseUrl: 'http://127.0.0.1:43210',
      demo: true,
      apiKey: expect.stringMatching(/^demo-[\w-]{32}$/),
    });
    // The simulator accepts only this run's key, acting as the documented demo account.
    expect(start.mock.calls[0]![0].apiKeys).toEqual({ [service.endpoint.apiKey]: DEMO_ACCOUNT_KEY });
    expect(DEMO_SERVICE_LABEL).toBe('Demo service (offline)');
    const again = await startEmbeddedService('/data/Swath', start);
    expect(again.endpoint.apiKey).not.toBe(service.endpoint.apiKey);
    await again.close();

    await service.close();
    expect(close).toHaveBeenCalledTimes(2);
  });

  it('propagates a failed start', async () => {
    const start: StartSimulator = async () => {
      throw new Error('EADDRINUSE');
    };
    await expect(startEmbeddedService('/data', start)).rejects.toThrow('EADDRINUSE');
  });

  it('passes SWATH_SIM_SHAPES on as the answer style (what `npm run dev:browser` runs against)', async () => {
    const start = vi.fn<StartSimulator>(async () => ({ url: 'http://127.0.0.1:43210', port: 43210, close: async () => undefined }));
    const before = process.env.SWATH_SIM_SHAPES;
    try {
      process.env.SWATH_SIM_SHAPES = 'variant';
      await startEmbeddedService('/data', start);
      delete process.env.SWATH_SIM_SHAPES;
      await startEmbeddedService('/data', start);
    } finally {
      if (before === undefined) delete process.env.SWATH_SIM_SHAPES;
      else process.env.SWATH_SIM_SHAPES = before;
    }
    expect(start.mock.calls.map((c) => c[0].shapes)).toEqual(['variant', undefined]);
  });
});
