import { createPinia, setActivePinia } from 'pinia';
import { nextTick } from 'vue';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SwathApi } from '../../../../preload/contract';
import { makeBridge } from './fake-bridge';
import { bridgeStandIn } from '../../fake-bridge';
import { useNotificationsStore } from '../../../../renderer/src/features/notifications/stores/notifications';
import { useTaskingOrdersStore } from '../../../../renderer/src/features/tasking/stores/tasking-orders';

const fake = bridgeStandIn();

const GUID = 'eeeeeeee-eeee-4eee-8eee-000000000001';
let bridge: ReturnType<typeof makeBridge>;
let shown: { kind: string; title: string; body: string }[];

beforeEach(() => {
  setActivePinia(createPinia());
  bridge = makeBridge();
  shown = [];
  Object.assign(bridge.api, { notificationsShow: vi.fn(async (n: { kind: string; title: string; body: string }) => (shown.push(n), { ok: true, data: { shown: true } })) });
  fake.api = bridge.api as unknown as SwathApi;
});

describe('order status notifications', () => {
  it('raise one notification per status change, however often the orders list is refreshed', async () => {
    const notifications = useNotificationsStore();
    notifications.start();
    const orders = useTaskingOrdersStore();
    bridge.orders.push({ TaskOrderGuid: GUID, OrderingProcessStatus: 'Review', From: '2025-01-01', To: null, Model: 'Stratus2' });
    await orders.refresh();
    bridge.orders[0]!.OrderingProcessStatus = 'Processing';
    // The Tasking panel's poll and the background check both refresh; the change stays shown as a badge for a minute.
    await orders.refresh();
    await nextTick();
    await orders.refresh();
    await nextTick();
    await orders.refresh();
    await nextTick();
    expect(orders.statusChanges[GUID]).toMatchObject({ from: 'Review', to: 'Processing' });
    expect(shown.filter((n) => n.kind === 'orderStatus')).toEqual([
      expect.objectContaining({ title: 'Order status changed', body: `Order ${GUID}: Review → Processing.` }),
    ]);

    // The next change is its own notification.
    bridge.orders[0]!.OrderingProcessStatus = 'Completed';
    await orders.refresh();
    await nextTick();
    await orders.refresh();
    await nextTick();
    expect(shown.filter((n) => n.kind === 'orderStatus').map((n) => n.body)).toEqual([
      `Order ${GUID}: Review → Processing.`, `Order ${GUID}: Processing → Completed.`,
    ]);
    notifications.stop();
  });
  it('raise one summary for many changes in one refresh, one each for a few, and never twice', async () => {
    const notifications = useNotificationsStore();
    notifications.start();
    const orders = useTaskingOrdersStore();
    const guid = (i: number) => `eeeeeeee-eeee-4eee-8eee-${String(i).padStart(12, '0')}`;
    for (let i = 0; i < 40; i++) bridge.orders.push({ TaskOrderGuid: guid(i), OrderingProcessStatus: 'Processing', From: '2025-01-01', To: null, Model: 'Stratus2' });
    await orders.refresh();
    await nextTick();
    // 37 change at once: 30 finish, 7 fail.
    for (let i = 0; i < 37; i++) bridge.orders[i]!.OrderingProcessStatus = i < 30 ? 'Completed' : 'Failed';
    await orders.refresh();
    await nextTick();
    await orders.refresh();
    await nextTick();
    const status = () => shown.filter((n) => n.kind === 'orderStatus');
    expect(status()).toEqual([
      expect.objectContaining({ title: 'Order statuses changed', body: '37 orders changed status: 30 Completed, 7 Failed.', target: { panel: 'tasking' } }),
    ]);

    // Three more: one each, naming the order.
    for (let i = 37; i < 40; i++) bridge.orders[i]!.OrderingProcessStatus = 'Completed';
    await orders.refresh();
    await nextTick();
    await orders.refresh();
    await nextTick();
    expect(status().slice(1)).toEqual([37, 38, 39].map((i) => expect.objectContaining({
      title: 'Order status changed', body: `Order ${guid(i)}: Processing → Completed.`, target: { panel: 'tasking', orderId: guid(i) },
    })));
    expect(status()).toHaveLength(4);
    notifications.stop();
  });
});
