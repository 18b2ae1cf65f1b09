import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http, { type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HttpExecutor, configureRequestOptions, configureRequestUrl, type DownloadOptions } from 'builder-util-runtime';
import { DebUpdater } from 'electron-updater';
import type { AppAdapter } from 'electron-updater/out/AppAdapter';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PolicyState } from '../../../main/policy';
import { UpdateService, resolveUpdateConfig, type UpdateStatus } from '../../../main/updates';

// electron-updater's real DebUpdater and generic provider against a local feed over loopback HTTPS
// (a feed must be https, on loopback too; the certificate is the loopback fixture's, trusted here).
// Electron is not loaded: the updater gets a Node app adapter and Node's https for its requests
// (in the app they are Electron's app and net; the download and its sha512 check are
// builder-util-runtime's, shared by both). Nothing is ever installed.

const TLS = {
  key: readFileSync(new URL('../../fixtures/tls/loopback.key.pem', import.meta.url)),
  cert: readFileSync(new URL('../../fixtures/tls/loopback.cert.pem', import.meta.url)),
};

class NodeHttpExecutor extends HttpExecutor<ClientRequest> {
  createRequest(options: RequestOptions, callback: (response: IncomingMessage) => void): ClientRequest {
    return https.request({ ...options, ca: TLS.cert }, callback);
  }

  /** As electron-updater's ElectronHttpExecutor.download: the shared doDownload, which checks the sha512. */
  download(url: URL, destination: string, options: DownloadOptions): Promise<string> {
    return options.cancellationToken.createPromise((resolve, reject, onCancel) => {
      const requestOptions: RequestOptions = { headers: options.headers ?? undefined };
      configureRequestUrl(url, requestOptions);
      configureRequestOptions(requestOptions);
      this.doDownload(requestOptions, { destination, options, onCancel, callback: (error) => (error ? reject(error) : resolve(destination)), responseHandler: null }, 0);
    });
  }
}

const none: PolicyState = { status: 'none', file: '/etc/swath/policy.json', problems: [], policy: {} };
const withPolicy = (policy: PolicyState['policy']): PolicyState => ({ ...none, status: 'applied', policy });

interface Release {
  version: string;
  body: Buffer;
  /** The bytes the feed claims (their sha512 goes into the yml); defaults to `body`. */
  claimed?: Buffer;
  stagingPercentage?: number;
  notes?: string;
}

describe('update feed over HTTP', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'swath-updates-'));
  const feeds = new Map<string, Release>(); // channel file -> release
  const requests: string[] = [];
  const logs: string[] = [];
  let server: https.Server;
  let base = '';

  beforeAll(async () => {
    server = https.createServer(TLS, (req, res) => {
      requests.push(req.url ?? '');
      const url = new URL(req.url ?? '/', 'http://x');
      const yml = url.pathname.slice(1);
      const release = feeds.get(yml);
      if (release) {
        const sha512 = createHash('sha512').update(release.claimed ?? release.body).digest('base64');
        const text = [
          `version: ${release.version}`,
          'files:',
          `  - url: swath_${release.version}_amd64.deb`,
          `    sha512: ${sha512}`,
          `    size: ${(release.claimed ?? release.body).length}`,
          `path: swath_${release.version}_amd64.deb`,
          `sha512: ${sha512}`,
          `releaseDate: '2026-11-20T10:00:00.000Z'`,
          ...(release.notes ? [`releaseNotes: ${JSON.stringify(release.notes)}`] : []),
          ...(release.stagingPercentage !== undefined ? [`stagingPercentage: ${release.stagingPercentage}`] : []),
        ].join('\n');
        return void res.writeHead(200, { 'content-type': 'text/yaml' }).end(text);
      }
      for (const r of feeds.values()) {
        if (url.pathname === `/swath_${r.version}_amd64.deb`) return void res.writeHead(200, { 'content-length': r.body.length }).end(r.body);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(root, { recursive: true, force: true });
  });

  let n = 0;
  async function open(url: string, options: { channelPolicy?: 'stable' | 'beta' } = {}) {
    const dir = path.join(root, `run-${++n}`);
    const app: AppAdapter = {
      version: '1.4.0', name: 'Swath', isPackaged: true, appUpdateConfigPath: path.join(dir, 'unused.yml'),
      userDataPath: path.join(dir, 'userData'), baseCachePath: path.join(dir, 'cache'),
      whenReady: () => Promise.resolve(), quit: () => undefined, relaunch: () => undefined, onQuit: () => undefined,
    };
    const updater = () => {
      const u = new DebUpdater(null, app);
      (u as unknown as { httpExecutor: HttpExecutor<ClientRequest> }).httpExecutor = new NodeHttpExecutor();
      return u;
    };
    const states: UpdateStatus[] = [];
    const waiters: Array<(s: UpdateStatus) => void> = [];
    const service = await UpdateService.open({
      updater, stateDir: path.join(dir, 'updates'), currentVersion: '1.4.0', log: (l) => logs.push(l),
      inputs: { buildUrl: url, packaged: true, policy: options.channelPolicy ? withPolicy({ updates: { channel: options.channelPolicy } }) : none },
      onState: (s) => {
        states.push(s);
        for (const w of waiters.splice(0)) w(s);
      },
    });
    /** Resolves at the first state (from now or already reached) that ends a check: none, ready or error. */
    const settled = (): Promise<UpdateStatus> => {
      const done = (s: UpdateStatus) => s.state === 'none' || s.state === 'ready' || s.state === 'error';
      const current = service.state();
      if (done(current)) return Promise.resolve(current);
      return new Promise((resolve) => {
        const wait = (s: UpdateStatus) => (done(s) ? resolve(s) : waiters.push(wait));
        waiters.push(wait);
      });
    };
    return { service, states, settled, dir };
  }

  it('update found: downloaded in the background, sha512 checked, ready with release notes, nothing installed', async () => {
    const body = randomBytes(50_000);
    feeds.set('latest-linux.yml', { version: '1.5.0', body, notes: 'Faster library; policy support.' });
    const { service, settled, states, dir } = await open(base);
    expect(service.state()).toMatchObject({ state: 'idle', url: base, channel: 'stable' });
    await service.check();
    const s = await settled();
    expect(s).toMatchObject({ state: 'ready', version: '1.5.0', releaseNotes: 'Faster library; policy support.', percent: 100 });
    expect(states.map((x) => x.state)).toContain('downloading');
    const cached = path.join(dir, 'cache', 'swath-updater', 'pending', 'swath_1.5.0_amd64.deb');
    expect(readFileSync(cached).equals(body)).toBe(true);
    expect(requests).toContain('/swath_1.5.0_amd64.deb');
  });

  it('no update: the feed offers the running version', async () => {
    feeds.set('latest-linux.yml', { version: '1.4.0', body: randomBytes(100) });
    const { service, settled } = await open(base);
    await service.check();
    expect(await settled()).toMatchObject({ state: 'none', version: null });
  });

  it('refuses a downgrade, also on a channel (where electron-updater would allow one by default)', async () => {
    feeds.set('beta-linux.yml', { version: '1.3.9', body: randomBytes(100) });
    const { service, settled } = await open(base, { channelPolicy: 'beta' });
    expect(service.state()).toMatchObject({ channel: 'beta', channelFixed: true });
    await service.check();
    expect(await settled()).toMatchObject({ state: 'none' });
    expect(logs.join('\n')).toMatch(/latest version: 1\.3\.9, downgrade is disallowed/);
    expect(requests.some((r) => r.startsWith('/beta-linux.yml?'))).toBe(true);
    await expect(service.setChannel('stable')).rejects.toThrow(/fixed/);
  });

  it('a corrupt file (sha512 mismatch) is refused and not kept', async () => {
    feeds.set('latest-linux.yml', { version: '1.6.0', body: randomBytes(20_000), claimed: randomBytes(20_000) });
    const { service, settled, dir } = await open(base);
    await service.check();
    const s = await settled();
    expect(s.state).toBe('error');
    expect(s.message).toMatch(/sha512 checksum mismatch/);
    expect(existsSync(path.join(dir, 'cache', 'swath-updater', 'pending', 'swath_1.6.0_amd64.deb'))).toBe(false);
    expect(() => service.install()).toThrow(/No update has been downloaded/);
  });

  it('staged rollout: outside a 0 % rollout nothing is offered, inside a 100 % rollout it is', async () => {
    feeds.set('latest-linux.yml', { version: '1.7.0', body: randomBytes(1000), stagingPercentage: 0 });
    const first = await open(base);
    await first.service.check();
    expect(await first.settled()).toMatchObject({ state: 'none' });
    feeds.set('latest-linux.yml', { version: '1.7.0', body: randomBytes(1000), stagingPercentage: 100 });
    const second = await open(base);
    await second.service.check();
    expect(await second.settled()).toMatchObject({ state: 'ready', version: '1.7.0' });
  });

  it('the user’s channel choice is kept and read from beta*.yml', async () => {
    feeds.set('beta-linux.yml', { version: '1.8.0-beta.1', body: randomBytes(500) });
    const { service, settled, dir } = await open(base);
    await service.setChannel('beta');
    expect(await settled()).toMatchObject({ state: 'ready', version: '1.8.0-beta.1', channel: 'beta', channelFixed: false });
    expect(JSON.parse(readFileSync(path.join(dir, 'updates', 'channel.json'), 'utf8'))).toEqual({ channel: 'beta' });
  });

  it('server down: an error state with the reason, no crash', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { service, settled } = await open(`https://127.0.0.1:${port}/`);
    // electron-updater's generic provider waits 0, 1 and 2 s (its own setTimeout) before each retry of a refused
    // connection. Those waits run on fake timers, each as soon as it is set; the connections and the states are real.
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      let s: UpdateStatus | undefined;
      void settled().then((x) => (s = x));
      const checked = service.check();
      // Until the check has settled: run a pending retry wait, or let the refused connection come back.
      while (!s) {
        if (vi.getTimerCount() > 0) await vi.advanceTimersToNextTimerAsync();
        else await new Promise((resolve) => setImmediate(resolve));
      }
      await checked;
      expect(s.state).toBe('error');
      expect(s.message).toMatch(/ECONNREFUSED/);
    } finally {
      vi.useRealTimers();
    }
  }, 30_000);
});

describe('updates off', () => {
  it('never loads electron-updater and answers with the reason', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-updates-off-'));
    let created = 0;
    const service = await UpdateService.open({
      updater: () => {
        created++;
        throw new Error('must not be created');
      },
      stateDir: dir, currentVersion: '1.4.0', inputs: { buildUrl: '', packaged: true, policy: none },
    });
    service.start();
    expect(await service.check()).toMatchObject({ state: 'off', message: expect.stringMatching(/no update server/) });
    service.stop();
    expect(created).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('update configuration', () => {
  const inputs = { buildUrl: '', policy: none, userChannel: null, packaged: true };

  it('is off, and says why, without a URL from the build or the policy', () => {
    expect(resolveUpdateConfig(inputs)).toMatchObject({ enabled: false, url: null, reason: expect.stringMatching(/SWATH_UPDATE_URL.*updates\.url/) });
  });

  it('takes the build URL, and the policy URL over it', () => {
    expect(resolveUpdateConfig({ ...inputs, buildUrl: 'https://b.example/swath' })).toMatchObject({ enabled: true, url: 'https://b.example/swath', source: 'build' });
    expect(resolveUpdateConfig({ ...inputs, buildUrl: 'https://b.example/swath', policy: withPolicy({ updates: { url: 'https://p.example/u' } }) }))
      .toMatchObject({ enabled: true, url: 'https://p.example/u', source: 'policy' });
  });

  it('policy can turn updates off and fix the channel; otherwise the user chooses', () => {
    expect(resolveUpdateConfig({ ...inputs, buildUrl: 'https://b.example', policy: withPolicy({ updates: { enabled: false } }) })).toMatchObject({ enabled: false, reason: expect.stringMatching(/policy/) });
    expect(resolveUpdateConfig({ ...inputs, userChannel: 'beta' })).toMatchObject({ channel: 'beta', channelFixed: false });
    expect(resolveUpdateConfig({ ...inputs, userChannel: 'beta', policy: withPolicy({ updates: { channel: 'stable' } }) })).toMatchObject({ channel: 'stable', channelFixed: true });
  });

  it('is off for a plain-http feed, on loopback too', () => {
    for (const url of ['http://127.0.0.1:8080/feed/', 'http://localhost:9/', 'http://[::1]:9/', 'http://updates.corp.example/']) {
      expect(resolveUpdateConfig({ ...inputs, buildUrl: url }), url).toMatchObject({ enabled: false, url, reason: expect.stringMatching(/^Updates are off: .*plain http.*must use https:\/\//) });
    }
    expect(resolveUpdateConfig({ ...inputs, buildUrl: 'http://127.0.0.1:8080/feed/' }).reason).toMatch(/even on this machine/);
  });

  it('is off in development and for a non-http URL', () => {
    expect(resolveUpdateConfig({ ...inputs, buildUrl: 'https://b.example', packaged: false })).toMatchObject({ enabled: false, reason: expect.stringMatching(/installed builds/) });
    expect(resolveUpdateConfig({ ...inputs, buildUrl: 'file:///srv/feed' })).toMatchObject({ enabled: false, reason: expect.stringMatching(/not an http/) });
  });
});
