// @vitest-environment jsdom
import { mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { nextTick, watch } from 'vue';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SwathApi } from '../../../../preload/contract';
import { makeBridge } from './fake-bridge';
import { bridgeStandIn } from '../../fake-bridge';
import { useTaskingOrdersStore } from '../../../../renderer/src/features/tasking/stores/tasking-orders';
import OrdersTab from '../../../../renderer/src/features/tasking/views/OrdersTab.vue';

const fake = bridgeStandIn();

const guid = (n: number) => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`;
let bridge: ReturnType<typeof makeBridge>;

function seed(n: number): void {
  for (let i = 0; i < n; i++) {
    bridge.orders.push({
      TaskOrderGuid: guid(i), OrderingProcessStatus: 'Review', Model: 'Stratus2', From: '2026-01-01', To: '2026-02-01', ImageFrequency: 7,
      Wkt: `POLYGON((${10 + (i % 50) * 0.2} 50, ${10.1 + (i % 50) * 0.2} 50, ${10.1 + (i % 50) * 0.2} 50.1, ${10 + (i % 50) * 0.2} 50.1, ${10 + (i % 50) * 0.2} 50))`,
    });
  }
}

beforeEach(() => {
  setActivePinia(createPinia());
  bridge = makeBridge();
  fake.api = bridge.api as unknown as SwathApi;
});

describe('the orders poll', () => {
  it('keeps the row objects of unchanged orders; a changed order gets a new row and its status change', async () => {
    seed(3);
    const orders = useTaskingOrdersStore();
    await orders.refresh();
    const first = orders.rows;
    expect(first.map((r) => r.key)).toEqual([guid(0), guid(1), guid(2)]);
    // The service answers with new objects each time (fake-bridge copies them): nothing changed, nothing new.
    await orders.refresh();
    expect(orders.rows).toBe(first);

    bridge.orders[1]!.OrderingProcessStatus = 'Processing';
    bridge.orders.splice(2, 1);
    await orders.refresh();
    expect(orders.rows.map((r) => r.key)).toEqual([guid(0), guid(1)]);
    expect(orders.rows[0]).toBe(first[0]);
    expect(orders.rows[1]).not.toBe(first[1]);
    expect(orders.statusChanges[guid(1)]).toMatchObject({ from: 'Review', to: 'Processing' });
  });

  it('merges an answer in a task after the one it came in (the window draws and takes input between)', async () => {
    seed(3);
    const orders = useTaskingOrdersStore();
    await orders.refresh();
    const before = orders.rows;
    bridge.orders[1]!.OrderingProcessStatus = 'Processing';
    // The task queued when the answer lands runs before the merge: the rows are still the last ones then.
    let seenInNextTask: unknown = null;
    const stop = watch(() => orders.list.loading, (loading) => !loading && setTimeout(() => (seenInNextTask = orders.rows), 0), { flush: 'sync' });
    await orders.refresh();
    stop();
    expect(seenInNextTask).toBe(before);
    expect(orders.rows).not.toBe(before);
    expect(orders.rows[1]!.summary.status).toBe('Processing');
    // The request keeps that the list answered, not the answer: the records live on in the rows.
    expect(orders.list.data).toBe(true);
    expect(orders.rows[1]!.row).toMatchObject({ OrderingProcessStatus: 'Processing' });
  });

  it('drops a merge still running when the list is reset (another connection): its rows are not shown', async () => {
    seed(3);
    const orders = useTaskingOrdersStore();
    // Reset in the task after the answer's, while the merge waits for its turn.
    const stop = watch(() => orders.list.loading, (loading) => !loading && setTimeout(() => orders.list.reset(), 0), { flush: 'sync' });
    await orders.refresh();
    stop();
    expect(orders.list.data).toBeNull();
    expect(orders.rows).toEqual([]);
    // And reset as the answer lands, before the merge starts.
    const stop2 = watch(() => orders.list.loading, (loading) => !loading && orders.list.reset(), { flush: 'sync' });
    await orders.refresh();
    stop2();
    expect(orders.rows).toEqual([]);
  });

  it('draws only the orders in view, with their place in the list, and arrow keys walk it', async () => {
    seed(1000);
    const orders = useTaskingOrdersStore();
    const w = mount(OrdersTab, { attachTo: document.body });
    await orders.refresh();
    await nextTick();
    const drawn = w.findAll('[data-testid="order-row"]');
    expect(drawn.length).toBeGreaterThan(5);
    expect(drawn.length).toBeLessThan(40);
    expect(drawn[0]!.attributes('aria-setsize')).toBe('1000');
    expect(drawn[0]!.attributes('aria-posinset')).toBe('1');
    expect(w.get('[data-testid="orders-list"]').attributes('aria-label')).toBe('Orders');

    // ArrowDown from a row moves the focus to the next one's button.
    const button = drawn[0]!.get('button');
    (button.element as HTMLElement).focus();
    await button.trigger('keydown', { key: 'ArrowDown' });
    await nextTick();
    expect(document.activeElement?.closest('li')?.getAttribute('data-order')).toBe(guid(1));
    // Enter (a click) selects the focused order.
    (document.activeElement as HTMLElement).click();
    expect(orders.selectedKey).toBe(guid(1));
    w.unmount();
  });
});
