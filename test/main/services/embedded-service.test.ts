import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DEMO_API_KEY, DEMO_SERVICE_LABEL, startEmbeddedService, type StartSimulator } from '../../../main/services/embedded-service';

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
      apiKey: 'demo-key',
    });
    expect(DEMO_SERVICE_LABEL).toBe('Demo service (offline)');
    expect(DEMO_API_KEY).toBe('demo-key');

    await service.close();
    expect(close).toHaveBeenCalledOnce();
  });

  it('propagates a failed start', async () => {
    const start: StartSimulator = async () => {
      throw new Error('EADDRINUSE');
    };
    await expect(startEmbeddedService('/data', start)).rejects.toThrow('EADDRINUSE');
  });
});
