import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { forkEntry } from '../../../main/shared/entry-point';
import { nodeSimulatorChild, simulatorChildEntry, simulatorInChild, forkedSimulator } from '../../../main/hosts/simulator-process';
import { startEmbeddedService } from '../../../main/app/embedded-service';

// The embedded demo service runs in its own process, never on main's thread.
// These start the real child (simulator/child.ts under tsx) and talk to it over loopback HTTP.

vi.mock('electron', async () => {
  // A utility process stand-in that is a real Node child running the same entry: its port is the IPC channel.
  const { forkEntry: fork } = await import('../../../main/shared/entry-point');
  const events = await import('node:events');
  const { vi: v } = await import('vitest');
  return {
    utilityProcess: {
      fork: v.fn((file: string) => {
        const child = fork({ file, fromSource: file.endsWith('.ts') });
        const utility = new events.EventEmitter() as InstanceType<typeof events.EventEmitter> & { postMessage(m: unknown): void; kill(): boolean };
        utility.postMessage = (m: unknown) => void child.send(m as never);
        utility.kill = () => child.kill();
        child.on('message', (m) => utility.emit('message', m));
        child.on('exit', (code) => utility.emit('exit', code));
        return utility;
      }),
    },
  };
});

const accountInfo = (baseUrl: string, key: string): Promise<Response> => fetch(`${baseUrl}/api/account/info`, { headers: { 'x-api-key': key } });

describe('the demo service in a child process', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-sim-child-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers over loopback with the run key (told over IPC, never in argv or env), keeps demo state, and exits on close', async () => {
    let child: ChildProcess | null = null;
    const lines: string[] = [];
    const start = simulatorInChild(() => nodeSimulatorChild((child = forkEntry(simulatorChildEntry()))));
    const service = await startEmbeddedService(dir, start, (line) => lines.push(line));
    const { baseUrl, apiKey } = service.endpoint;
    expect(child!.pid).toBeGreaterThan(0);
    expect(child!.pid).not.toBe(process.pid);
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await accountInfo(baseUrl, apiKey)).status).toBe(200);
    // The documented key is not accepted: only this run's.
    expect((await accountInfo(baseUrl, 'demo-key')).status).toBe(401);
    if (process.platform === 'linux') {
      expect(readFileSync(`/proc/${child!.pid}/cmdline`, 'utf8')).not.toContain(apiKey);
      expect(readFileSync(`/proc/${child!.pid}/environ`, 'utf8')).not.toContain(apiKey);
    }
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    await service.close();
    expect(await exited).toBe(0);
    // The child flushed the demo account's state where main asked, under userData.
    expect(existsSync(path.join(dir, 'demo-state.json'))).toBe(true);
    expect(JSON.stringify(lines)).not.toContain(apiKey);

    // A restart reads that state back (same orders for the demo account).
    const again = await startEmbeddedService(dir, forkedSimulator());
    const orders = await fetch(`${again.endpoint.baseUrl}/api/tasking/orders`, { headers: { 'x-api-key': again.endpoint.apiKey } });
    expect(orders.status).toBe(200);
    await again.close();
  });

  it('a child that cannot listen rejects with its reason', async () => {
    const busy = http.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      await expect(forkedSimulator()({ port, host: '127.0.0.1', cacheDir: path.join(dir, 'busy-cache') })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      busy.close();
    }
  });

  it('closing after the child died resolves at once; the death is logged', async () => {
    let child: ChildProcess | null = null;
    const lines: string[] = [];
    const sim = await simulatorInChild(() => nodeSimulatorChild((child = forkEntry(simulatorChildEntry()))))({ port: 0, host: '127.0.0.1', cacheDir: path.join(dir, 'dead-cache'), log: (l) => lines.push(l) });
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child!.kill('SIGKILL');
    await exited;
    await sim.close();
    expect(lines.some((l) => /exited unexpectedly/.test(l))).toBe(true);
  });

  it('the Electron host runs it in a utility process with the entry it is given', async () => {
    const electron = await import('electron');
    const { utilityProcessSimulator } = await import('../../../main/hosts/electron-host');
    const entry = simulatorChildEntry().file;
    const service = await startEmbeddedService(path.join(dir, 'electron'), utilityProcessSimulator(entry));
    expect(vi.mocked(electron.utilityProcess.fork)).toHaveBeenCalledWith(entry, [], expect.objectContaining({ serviceName: 'Swath demo service' }));
    expect((await accountInfo(service.endpoint.baseUrl, service.endpoint.apiKey)).status).toBe(200);
    await service.close();
  });
});
