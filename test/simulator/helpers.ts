import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator/index.js';
import { forkedSimulator } from '../../main/hosts/simulator-process.js';
import type { StartSimulator } from '../../main/app/embedded-service.js';

/**
 * The simulator's answer style for tests that must pass in every style:
 * SWATH_SIM_SHAPES=variant runs them against the variant answers; unset, the simulator's default.
 */
export const SIM_SHAPES = process.env.SWATH_SIM_SHAPES || undefined;

/** startSimulator in the answer style `shapes` names (default: the one {@link SIM_SHAPES} asks for). */
export const styledSimulator = (shapes: string | undefined = SIM_SHAPES): typeof startSimulator => (opts = {}) =>
  startSimulator({ ...opts, ...(shapes ? { shapes } : {}) } as SimulatorOptions);

/**
 * The embedded demo service as the browser host runs it (its own Node child process, see
 * main/hosts/simulator-process.ts), in the answer style `shapes` names (default SIM_SHAPES's).
 */
export const styledChildSimulator = (shapes: string | undefined = SIM_SHAPES): StartSimulator => {
  const inChild = forkedSimulator();
  return (opts) => inChild({ ...opts, ...(shapes ? { shapes } : {}) });
};

/** startSimulator in the answer style {@link SIM_SHAPES} asks for (handed to createApp as its startSimulator). */
export const startStyledSimulator: typeof startSimulator = styledSimulator();

/**
 * The answer styles the end-to-end flows run against: both (production and variant), so
 * `npm test` proves every flow in each; only the one SWATH_SIM_SHAPES names when it is set.
 */
export const ANSWER_STYLES: string[] = SIM_SHAPES ? [SIM_SHAPES] : ['production', 'variant'];

/** The rows of a list answer, whatever the service calls the list: its one array of records. */
export function listRows(data: unknown): any[] {
  const lists = Object.values((data ?? {}) as Record<string, unknown>).filter(Array.isArray);
  if (lists.length !== 1) throw new Error(`Expected one list in the answer, found ${lists.length}.`);
  return lists[0]!;
}

/** A simulator on loopback with a controllable clock and a private cache dir. */
export interface TestSim {
  sim: RunningSimulator;
  url: string;
  dir: string;
  clock: { now: number };
  advance(ms: number): void;
  call(method: string, pathname: string, body?: unknown, key?: string | null, headers?: Record<string, string>): Promise<ApiResponse>;
  close(): Promise<void>;
}

/** A parsed JSON response. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  json: any;
}

/** Fixed "now" for tests: 2026-11-22 12:00 UTC. */
export const T0 = Date.parse('2026-11-22T12:00:00Z');

/** Starts a simulator for a test file. */
export async function startTestSim(opts: SimulatorOptions = {}): Promise<TestSim> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-sim-test-'));
  const clock = { now: T0 };
  const sim = await startSimulator({
    cacheDir: path.join(dir, 'cache'),
    now: () => clock.now,
    lifecycle: { review: 1000, preparing: 1000, awaiting: 1000, processing: 1000 },
    ...opts,
  }).catch((e: unknown) => {
    // Refused options (a test of the refusal): nothing of the attempt stays in the temp folder.
    rmSync(dir, { recursive: true, force: true });
    throw e;
  });
  const call = async (method: string, pathname: string, body?: unknown, key: string | null = 'demo-key', headers: Record<string, string> = {}) => {
    const h: Record<string, string> = { ...headers };
    if (key !== null) h['x-api-key'] = key;
    if (body !== undefined) h['content-type'] ??= 'application/json';
    const res = await fetch(sim.url + pathname, { method, headers: h, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    let json: any = null;
    try { json = text ? JSON.parse(text) : null; } catch { json = text; }
    return { status: res.status, headers: res.headers, json };
  };
  return {
    sim, url: sim.url, dir, clock, call,
    advance: (ms) => { clock.now += ms; },
    close: async () => { await sim.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

/** A small AOI (about 2.2 km x 2.2 km) inside the seeded historical demo order. */
export const SMALL_AOI = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
/** An AOI no order covers (Lyon). */
export const UNCOVERED_AOI = 'POLYGON((4.80 45.70, 4.85 45.70, 4.85 45.74, 4.80 45.74, 4.80 45.70))';

/** An image date of the seeded demo order, found through search/available as a client would. */
export async function demoDate(t: TestSim, aoi = SMALL_AOI): Promise<string> {
  const r = await t.call('POST', '/api/satelliteimages/search/available', { Wkt: aoi, From: '2026-01-01', Until: null });
  const dates: string[] = r.json.Data.ModelImageDates[0].DatesByGeog[0].Dates;
  return dates[dates.length - 1]!;
}

/**
 * POSTs `body` as the attacker would: the bytes go to the socket as they are (node:http writes the
 * Buffer without copying it). fetch would wrap them in a web stream and clone them on main's loop,
 * which is the sender's cost, not the demo service's, and would be counted against main. With
 * `piece`, the body goes a piece of that many bytes at a time, each once the socket has taken the last.
 */
export function postBytes(url: string, headers: Record<string, string>, body: Buffer, piece?: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // A connection of its own: a kept-alive one the server is closing as the request goes out would reset it.
    const req = request(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(body.byteLength) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (!piece) return void req.end(body);
    const send = (at: number): void => {
      if (at >= body.byteLength) return void req.end();
      const next = (): void => void setTimeout(() => send(at + piece), 1);
      if (req.write(body.subarray(at, at + piece))) next();
      else req.once('drain', next);
    };
    send(0);
  });
}
