import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { EventName } from '../../../preload/contract';
import { MemoryKeychainBackend } from '../../../main/profiles';
import { createApp, type AppOptions, type SwathApp } from '../../../main/app/app';
import type { HostConfirm } from '../../../main/platform/confirm';
import { startSimulator, type RunningSimulator } from '../../../simulator';
import type { Account, StoredOrder } from '../../../simulator/state';
import type { Watch, WatchDate, WatchSummary } from '../../../main/watches';
import { watchChip } from '../../../preload/contract';

/** The app core on a simulator (real loopback HTTP) whose clock the test moves. */
export interface TestApp {
  app: SwathApp;
  sim: RunningSimulator;
  clock: { now: number };
  dir: string;
  events: { event: EventName; payload: any }[];
  call<T = any>(channel: string, request?: unknown): Promise<T>;
  /** The simulator's demo account (to set up credit or included downloads). */
  account(): Account;
  /** The seeded demo order that is recurring (true) or historical (false). */
  demoOrder(recurring: boolean): StoredOrder;
  close(): Promise<void>;
}

/** Starts the app core with its embedded service on a test clock (orders processed in 1 s). */
export async function startTestApp(opts: {
  confirm?: HostConfirm;
  faults?: string;
  /** Puts something in front of the simulator (a hostile proxy): the app talks to the URL it returns. */
  front?: (simUrl: string) => Promise<{ url: string; close(): Promise<void> }>;
  /** Admin policy and the rest of distribution. */
  distribution?: AppOptions['distribution'];
  /** The user's download folder (default <dir>/Downloads). */
  downloadsDir?: string;
  /** The simulator's answer style ('production' or 'variant'; default its own). */
  shapes?: string;
  /** More keys the embedded service accepts, each for the account it names (a profile the test creates uses one). */
  extraKeys?: Record<string, string>;
  /** The user-data folder of an earlier core to start again on (kept when this one closes); default a fresh one, removed on close. */
  dir?: string;
  /** Where the test clock starts (ms since the epoch; default now): a season of the simulator's landscape. */
  startAt?: number;
} = {}): Promise<TestApp> {
  const dir = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'swath-watch-'));
  const clock = { now: opts.startAt ?? Date.now() };
  let sim: RunningSimulator | null = null;
  const events: TestApp['events'] = [];
  const app = await createApp({
    userDataDir: dir,
    downloadsDir: opts.downloadsDir ?? path.join(dir, 'Downloads'),
    keychainBackend: new MemoryKeychainBackend(),
    version: '0.0.0-test',
    platform: process.platform,
    startSimulator: async (o) => {
      const s = await startSimulator({ ...o, ...(opts.extraKeys ? { apiKeys: { ...o.apiKeys, ...opts.extraKeys } } : {}), ...(opts.shapes ? { shapes: opts.shapes } : {}), now: () => clock.now, faults: opts.faults, lifecycle: { review: 1000, preparing: 1000, awaiting: 1000, processing: 1000 } });
      sim = s;
      if (!opts.front) return s;
      const front = await opts.front(s.url);
      return { url: front.url, port: Number(new URL(front.url).port), close: async () => { await front.close(); await s.close(); } };
    },
    emit: (event, payload) => events.push({ event, payload }),
    // The client's retries keep their number and rules; only the pauses between them are short here.
    retry: { baseDelayMs: 10, maxDelayMs: 50 },
    confirm: opts.confirm,
    distribution: opts.distribution,
  });
  const handlers = app.handlers as unknown as Record<string, (r: unknown, c: { senderUrl: string; signal: AbortSignal }) => unknown>;
  const account = () => Object.values(sim!.state.accounts).find((a) => a.profile.seedDemoOrder)!;
  return {
    app, sim: sim!, clock, dir, events,
    call: async (channel, request = {}) => (await handlers[channel]!(request, { senderUrl: 'test://', signal: AbortSignal.timeout(120_000) })) as never,
    account,
    demoOrder: (recurring) => account().orders.find((o) => (o.to == null) === recurring)!,
    async close() {
      await app.close();
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every date of a watch, paged through `watches:dates` as the window reads them. */
export async function allDates(t: TestApp, id: string, limit = 500): Promise<WatchDate[]> {
  const out: WatchDate[] = [];
  for (;;) {
    const page = await t.call<{ total: number; dates: WatchDate[] }>('watches:dates', { id, offset: out.length, limit });
    out.push(...page.dates);
    if (!page.dates.length || out.length >= page.total) return out;
  }
}

/**
 * The watch once a run has finished (a run after `after`, its lastRunAt, when given): its summary
 * from `watches:list` with all its dates paged in (and the summary's counts checked against them).
 */
export async function settled(t: TestApp, id: string, after: string | null = null): Promise<Watch> {
  let w: WatchSummary | undefined;
  await expect.poll(async () => {
    w = (await t.call<{ watches: WatchSummary[] }>('watches:list')).watches.find((x) => x.id === id);
    return !!w && !w.running && w.lastRunAt !== null && w.lastRunAt !== after;
  }, { timeout: 90_000, interval: 100 }).toBe(true);
  const { dateCount, counts, latest, monthSpentEur: _spent, ...fields } = w!;
  const dates = await allDates(t, id);
  expect(dateCount).toBe(dates.length);
  expect(latest).toEqual(dates.slice(-24).map(watchChip));
  expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(dates.length);
  return { ...fields, dates };
}
