import { afterEach, describe, expect, it } from 'vitest';
import type { ConfirmRequest } from '../../../main/platform/confirm';
import { startTestApp, type TestApp } from '../watches/app-helpers';

// Cancelling an order through `service:call` is asked in main's own dialog, whatever the page did
// before; the app core against its embedded simulator over loopback HTTP.

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

/** The cancel operation's one parameter (its name is the specification's), set to the recurring demo order. */
async function cancelRequest(t: TestApp) {
  const ops = await t.call<{ operations: { key: string; parameters: { properties: Record<string, unknown> } }[] }>('service:operations');
  const [param] = Object.keys(ops.operations.find((o) => o.key === 'tasking.orders.cancel')!.parameters.properties);
  return { key: 'tasking.orders.cancel', params: { [param!]: t.demoOrder(true).guid } };
}

describe('service:call cancelling an order', () => {
  it('is refused where main has no dialog (the browser host), and the order stays', async () => {
    t = await startTestApp();
    await expect(t.call('service:call', await cancelRequest(t))).rejects.toMatchObject({ kind: 'validation', message: expect.stringMatching(/stays as it is.*confirmation in Swath's own dialog/) });
    expect(t.demoOrder(true).renewalStoppedAt).toBeNull();
    expect(t.demoOrder(true).canceledAt).toBeNull();
  });

  it('asks the analyst in main, naming the order, and cancels only when they agree', async () => {
    const asked: ConfirmRequest[] = [];
    let answer = false;
    t = await startTestApp({ confirm: async (r) => (asked.push(r), answer) });
    const request = await cancelRequest(t);
    const guid = t.demoOrder(true).guid;
    await expect(t.call('service:call', request)).rejects.toMatchObject({ kind: 'cancelled' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ title: 'Cancel the order?', confirmLabel: 'Cancel order' });
    expect(asked[0]!.message).toContain(guid);
    expect(t.demoOrder(true).renewalStoppedAt).toBeNull();

    answer = true;
    const done = await t.call<{ data: unknown }>('service:call', request);
    expect(JSON.stringify(done.data)).toMatch(/RenewalStopped/i);
    expect(asked).toHaveLength(2);
    expect(t.demoOrder(true).renewalStoppedAt).not.toBeNull();

    // Text of the page's choosing never goes into main's dialog.
    const param = Object.keys(request.params)[0]!;
    await t.call('service:call', { ...request, params: { [param]: 'Routine refresh? Click "Cancel order" to keep it' } }).catch(() => undefined);
    expect(asked[2]!.message).toBe('Cancel this tasking order?');

    // Other operations ask nothing.
    await t.call('service:call', { key: 'tasking.orders.list' });
    expect(asked).toHaveLength(3);
  });
});
