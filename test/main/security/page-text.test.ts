import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_REPORTS_PER_MINUTE } from '../../../main/diagnostics/handlers';
import { RateLimit, SERVICE_TEXT_MAX } from '../../../main/shared/untrusted-text';
import { classify } from '../../../main/watches';
import { PAGE_NOTIFICATIONS_PER_MINUTE } from '../../../main/notifications';
import { startTestApp, type TestApp } from './helpers.js';

// Text a page or a service controls stays in its place: bounded, on one line, attributed, rate-limited.

const FORGED = '\n2026-11-25 12:00:00.000 [info] policy: applied /etc/swath/policy.json\r\n[info] updates: installed 9.9.9';

describe('a compromised page', () => {
  let t: TestApp;
  const events: { event: string; payload: any }[] = [];
  beforeAll(async () => {
    t = await startTestApp({ emit: (event, payload) => events.push({ event, payload }) });
  });
  afterAll(() => t.close());
  const reportLines = () => t.logs.filter((l) => l.startsWith('renderer error'));

  it('cannot forge log lines or write tens of KB per error report', async () => {
    const res = await t.call('app:report-error', { source: 'window', message: `boom${FORGED}`, stack: `at x${FORGED}`.padEnd(20_000, 'y'), info: `i${FORGED}` });
    expect(res).toEqual({ ok: true, data: { logged: true } });
    const [line] = reportLines();
    expect(line).toBeDefined();
    expect(line).not.toMatch(/[\r\n\u2028\u2029]/);
    expect(line).toContain('boom\\n2026-11-25 12:00:00.000 [info] policy: applied');
    expect(line!.length).toBeLessThan(4_500);
    expect(line).toMatch(/more characters cut/);
    // Nothing else reached the log as a line of its own.
    expect(t.logs.some((l) => l.startsWith('[info] updates: installed'))).toBe(false);
  });

  it('cannot flood the log: reports past the rate limit are dropped and counted', async () => {
    const results: boolean[] = [];
    for (let i = 0; i < 50; i++) results.push((await t.call('app:report-error', { source: 'promise', message: `flood ${i}` })).data.logged);
    // One was used by the test before.
    expect(results.filter(Boolean)).toHaveLength(ERROR_REPORTS_PER_MINUTE - 1);
    expect(results.slice(ERROR_REPORTS_PER_MINUTE - 1).every((r) => r === false)).toBe(true);
    expect(reportLines()).toHaveLength(ERROR_REPORTS_PER_MINUTE);
  });

  it('cannot raise unlimited OS notifications', async () => {
    const shown: boolean[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await t.call('notifications:show', { kind: 'orderStatus', title: `Order ${i}`, body: 'Your order is ready.', target: { panel: 'orders' } });
      shown.push(res.data.shown);
    }
    expect(shown.filter(Boolean)).toHaveLength(PAGE_NOTIFICATIONS_PER_MINUTE);
    expect(events.filter((e) => e.event === 'notification')).toHaveLength(PAGE_NOTIFICATIONS_PER_MINUTE);
  });
});

describe('the rate limit', () => {
  it('allows `limit` a window, refuses the rest, counts them, and allows again once the window has passed', () => {
    let now = 1_000;
    const limit = new RateLimit(3, 60_000, () => now);
    expect([limit.take(), limit.take(), limit.take(), limit.take(), limit.take()]).toEqual([true, true, true, false, false]);
    expect(limit.takeRefused()).toBe(2);
    expect(limit.takeRefused()).toBe(0);
    now += 59_999;
    expect(limit.take()).toBe(false);
    now += 1;
    expect(limit.take()).toBe(true);
  });
});

describe('a hostile service\'s error text in "needs attention"', () => {
  const hostile = `Swath security notice:${FORGED}\nYour API key has expired. Enter it again at https://evil.example/login to keep your watches running. ${'x'.repeat(5_000)}`;

  it.each(['credit', 'auth', 'validation', 'invalid', 'limit', 'not-found', 'coverage', 'io', 'transient', null])('%s: Swath speaks first, the service is quoted after "The service said", on one line and short', (kind) => {
    const failure = classify(kind, hostile);
    const text = failure.handling === 'attention' ? failure.notice : failure.handling === 'skip-date' ? failure.note : failure.message;
    expect(text).not.toMatch(/[\r\n\u2028\u2029]/);
    expect(text.length).toBeLessThan(SERVICE_TEXT_MAX + 300);
    // The service's words never come first, where Swath's own sentence is (a retry's message is quoted
    // later, after "The last error:", when the watch gives up).
    if (failure.handling !== 'retry') {
      expect(text.indexOf('Swath security notice')).toBeGreaterThan(0);
      const attribution = kind === 'io' ? 'The error was: “' : 'The service said: “';
      expect(text.indexOf(attribution)).toBeGreaterThan(0);
      expect(text.indexOf('Swath security notice')).toBe(text.indexOf(attribution) + attribution.length);
    }
  });
});
