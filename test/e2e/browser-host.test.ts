import { mkdtempSync, readdirSync, readlinkSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { startBrowserHost, type BrowserHost } from '../../main/hosts/browser-host';
import { MemoryKeychainBackend } from '../../main/profiles';
import { createApp, type SwathApp } from '../../main/app/app';
import { startSimulator } from '../../simulator';
import { fixturePath } from '../fixtures/rasters';
import { chromiumAvailable, launchChromium } from './chromium';

const HAS_CHROMIUM = chromiumAvailable();

describe('browser host: the real renderer and main services over a WebSocket', () => {
  let host: BrowserHost;
  let app: SwathApp;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-bh-'));
    app = await createApp({ userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), keychainBackend: new MemoryKeychainBackend(), version: '0.0.0-test', platform: process.platform, startSimulator, emit: (e, p) => host?.emit(e, p) });
    host = await startBrowserHost({
      rendererDir: path.join(process.env.SWATH_E2E_BUILD!, 'renderer'), handlers: app.handlers, secrets: app.secrets,
      greeting: () => [{ event: 'connection:state', payload: app.connection() }],
    });
  });
  afterAll(async () => {
    await host.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const connect = (url: string, origin: string) => new Promise<number | 'open'>((resolve) => {
    const ws = new WebSocket(url, { origin });
    ws.on('open', () => { ws.close(); resolve('open'); });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(0));
  });

  it('refuses a WebSocket without the token or from another origin', async () => {
    const wsBase = host.origin.replace('http', 'ws') + '/__swath/ws';
    expect(await connect(`${wsBase}?token=${host.token}`, host.origin)).toBe('open');
    expect(await connect(`${wsBase}?token=wrong`, host.origin)).toBe(403);
    expect(await connect(wsBase, host.origin)).toBe(403);
    expect(await connect(`${wsBase}?token=${host.token}`, 'http://evil.example')).toBe(403);
  });

  it('serves library rasters only to the page opened with the token (its HttpOnly cookie)', async () => {
    const rasterHost = await startBrowserHost({
      rendererDir: path.join(process.env.SWATH_E2E_BUILD!, 'renderer'), handlers: app.handlers, secrets: app.secrets,
      rasters: { get: (id) => (id === 'a1' ? { path: fixturePath('utm33n-cog') } : undefined) },
    });
    try {
      const raster = `${rasterHost.origin}/__swath/raster/a1`;
      expect((await fetch(raster, { headers: { range: 'bytes=0-3' } })).status).toBe(403);
      // The page without the token sets nothing; with it, a cookie scoped to the raster path.
      expect((await fetch(`${rasterHost.origin}/`)).headers.get('set-cookie')).toBeNull();
      const page = await fetch(rasterHost.url);
      const cookie = page.headers.get('set-cookie')!;
      const port = new URL(rasterHost.origin).port;
      expect(cookie).toMatch(new RegExp(`^swath-raster-${port}=[0-9a-f]{48}; HttpOnly; SameSite=Strict; Path=/__swath/raster/$`));
      // Not the WebSocket token: the cookie opens rasters only.
      expect(cookie).not.toContain(rasterHost.token);
      const pair = cookie.split(';')[0]!;
      const ok = await fetch(raster, { headers: { range: 'bytes=0-3', cookie: pair } });
      expect(ok.status).toBe(206);
      expect(Buffer.from(await ok.arrayBuffer()).toString('latin1', 0, 2)).toBe('II');
      expect((await fetch(raster, { headers: { range: 'bytes=0-3', cookie: `swath-raster-${port}=wrong` } })).status).toBe(403);
      expect((await fetch(`${rasterHost.origin}/__swath/raster/nope`, { headers: { cookie: pair } })).status).toBe(404);
    } finally {
      await rasterHost.close();
    }
  });

  it('closes a raster file as soon as the page stops reading it (a closed preview aborts its range requests)', async () => {
    const big = path.join(dir, 'big.tif');
    writeFileSync(big, Buffer.from('II*\0'));
    truncateSync(big, 64 * 1024 * 1024);
    const rasterHost = await startBrowserHost({
      rendererDir: path.join(process.env.SWATH_E2E_BUILD!, 'renderer'), handlers: app.handlers, secrets: app.secrets,
      rasters: { get: (id) => (id === 'big' ? { path: big } : undefined) },
    });
    // This process's descriptors open on the file.
    const openOnBig = (): number => readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === big;
      } catch {
        return false;
      }
    }).length;
    try {
      const pair = (await fetch(rasterHost.url)).headers.get('set-cookie')!.split(';')[0]!;
      for (let i = 0; i < 5; i++) {
        const ctl = new AbortController();
        const res = await fetch(`${rasterHost.origin}/__swath/raster/big`, { headers: { range: 'bytes=0-67108863', cookie: pair }, signal: ctl.signal });
        expect(res.status).toBe(206);
        const reader = res.body!.getReader();
        await reader.read();
        ctl.abort();
        await reader.cancel().catch(() => undefined);
      }
      // Not held until garbage collection: every descriptor goes once the sockets are closed.
      await vi.waitFor(() => expect(openOnBig()).toBe(0), { timeout: 10_000 });
    } finally {
      await rasterHost.close();
    }
  });

  it('serves only files of the renderer folder, with the CSP header on the page', async () => {
    const page = await fetch(`${host.origin}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('/__swath/bridge.js');
    for (const p of ['/../package.json', '/%2e%2e/package.json', '/..%2fpackage.json']) {
      expect((await fetch(`${host.origin}${p}`)).status, p).toBe(404);
    }
  });

  it.skipIf(!HAS_CHROMIUM)('a first run in Chromium shows the demo service online', async () => {
    let browser: Browser | null = null;
    try {
      browser = await launchChromium();
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(host.url);
      await expect.poll(() => page.locator('footer, [role=contentinfo], body').first().innerText(), { timeout: 15_000 }).toMatch(/Demo service \(offline\)/);
      await expect.poll(() => page.locator('body').innerText(), { timeout: 15_000 }).toMatch(/Connected/);
      // The token leaves the address bar once read.
      expect(page.url()).not.toContain('token=');
      const info = await page.evaluate(() => (window as unknown as { swath: { appInfo(): Promise<unknown> } }).swath.appInfo());
      expect(info).toMatchObject({ ok: true, data: { service: { demo: true, label: 'Demo service (offline)' } } });
      expect(JSON.stringify(info)).not.toContain('demo-key');
      const bad = await page.evaluate(() => (window as unknown as { swath: { appInfo(r: unknown): Promise<unknown> } }).swath.appInfo({ extra: 1 }));
      expect(bad).toMatchObject({ ok: false, error: { kind: 'validation' } });
      expect(errors).toEqual([]);
      await page.screenshot({ path: 'test-results/browser-host-first-run.png' });
    } finally {
      await browser?.close();
    }
  });
});
