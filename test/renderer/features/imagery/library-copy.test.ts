// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, fail, makeBridge, ok } from '../../fake-bridge';
import { useAoiStore } from '../../../../renderer/src/platform/stores/aoi';
import { useImageryStore } from '../../../../renderer/src/features/imagery/stores/imagery';
import { useModelsStore } from '../../../../renderer/src/platform/stores/models';
import { useSessionStore } from '../../../../renderer/src/platform/stores/session';

const ImageryPanel = (await import('../../../../renderer/src/features/imagery/views/ImageryPanel.vue')).default;
const fake = bridgeStandIn();

const BERLIN = 'POLYGON((13.35 52.48, 13.45 52.48, 13.45 52.53, 13.35 52.53, 13.35 52.48))';
const HELD = { id: 'lib-1', path: '/home/a/Downloads/composite_20261024_ndvi_Stratus2_32633_10m.tif', date: '2026-10-24' };
const REFUSAL = `Already in your library: ${HELD.path} (2026-10-24), from an identical request. Use that file (0 EUR), or choose “Buy anyway” to download it again.`;

beforeEach(() => setActivePinia(createPinia()));

describe('an estimate of a composite already in the library', () => {
  it('says the identical file is there at 0 EUR, and "Buy anyway" (a button, reachable by keyboard) downloads it again', async () => {
    const bridge = makeBridge({
      imageryEstimate: async () => ok({ data: { CreditEstimate: 0.38, CurrencyCode: 'EUR' }, verdict: { decision: 'ok', reason: '', source: 'ledger' } as any, inLibrary: HELD }),
      // Main refuses the plain download, naming the file; with buyAnyway it queues it.
      downloadsEnqueue: async (r: { buyAnyway?: boolean }) => (r.buyAnyway ? ok({ id: 'job-2', state: 'queued', kind: 'composite' } as any) : fail('validation', REFUSAL, { buyAnyway: [REFUSAL] })),
    });
    fake.api = bridge.api;
    useAoiStore().importText(BERLIN);
    await useModelsStore().load();
    await useSessionStore().refreshStatus();
    const imagery = useImageryStore();
    imagery.settings.Date = '2026-10-24';
    const w = mount(ImageryPanel, { attachTo: document.body });
    expect(w.find('[data-testid="library-copy"]').exists()).toBe(false);
    expect(await imagery.estimate()).toBe(true);
    await flushPromises();
    const notice = w.get('[data-testid="library-copy"]');
    expect(notice.text()).toContain('Already in your library: composite_20261024_ndvi_Stratus2_32633_10m.tif (0 EUR)');

    // A plain download is refused by main: the refusal names the file, and offers "Buy anyway" there too.
    await w.get('[data-testid="download"]').trigger('click');
    await flushPromises();
    expect(w.get('[data-testid="step-download"]').text()).toContain(HELD.path);
    expect(w.find('[data-testid="download-buy-anyway"]').exists()).toBe(true);
    expect(bridge.api.downloadsEnqueue.mock.calls.at(-1)[0]).not.toHaveProperty('buyAnyway');

    const buy = notice.get('[data-testid="library-buy-anyway"]');
    expect(buy.element.tagName).toBe('BUTTON');
    expect(buy.attributes('tabindex')).toBeUndefined();
    (buy.element as HTMLButtonElement).focus();
    expect(document.activeElement).toBe(buy.element);
    await buy.trigger('click');
    await flushPromises();
    expect(bridge.api.downloadsEnqueue.mock.calls.at(-1)[0]).toMatchObject({ kind: 'composite', buyAnyway: true });
    w.unmount();
  });
});
