// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, fail, makeBridge, ok } from '../../fake-bridge';
import TeamCopyNotice from '../../../../renderer/src/features/imagery/views/TeamCopyNotice.vue';
import { usePreviewStore } from '../../../../renderer/src/features/library/stores/preview';
import { useLibraryStore } from '../../../../renderer/src/features/library/stores/library';

const fake = bridgeStandIn();

beforeEach(() => setActivePinia(createPinia()));

const match = (over: Record<string, unknown> = {}) => ({
  id: '42', acquiredBy: 'alice', acquiredAt: '2026-10-03T09:12:00.000Z', date: '2026-10-01', model: 'Stratus2', bands: ['B4', 'B3', 'B2'],
  resolution: 10, epsg: 32633, costEur: 1.51, exact: true, differences: [], available: true, readable: false, ...over,
});
const owned = (...matches: ReturnType<typeof match>[]) => ({ state: 'owned' as const, matches, claim: null, reason: null });

describe('the team\'s copy under an estimate', () => {
  it('names who bought it and when, uses it from the share, and offers Buy anyway', async () => {
    const bridge = makeBridge({ teamUseCopy: async () => ok({ libraryId: 'lib-1', path: '/mnt/team/composite/2026/a.tif' }) });
    fake.api = bridge.api;
    const w = mount(TeamCopyNotice, { props: { check: owned(match(), match({ id: '43', exact: false, differences: ['EPSG:32632 instead of EPSG:32633'] })) } });
    const items = w.findAll('[data-testid="team-match"]');
    expect(items).toHaveLength(2);
    expect(items[0]!.text()).toContain('Bought by alice on 2026-10-03 (UTC) — use the team’s copy, 0.00 EUR.');
    expect(items[0]!.text()).toContain('paid 1.51 EUR');
    expect(items[1]!.text()).toContain('close, but EPSG:32632 instead of EPSG:32633.');
    await items[0]!.get('[data-testid="team-use-link"]').trigger('click');
    await flushPromises();
    expect(bridge.api.teamUseCopy).toHaveBeenCalledWith({ id: '42', mode: 'link' });
    expect(w.get('[data-testid="team-used"]').text()).toContain('/mnt/team/composite/2026/a.tif');
    expect(w.emitted('used')).toEqual([['lib-1']]);
    await w.get('[data-testid="team-buy-anyway"]').trigger('click');
    expect(w.emitted('buy-anyway')).toHaveLength(1);
  });

  it('says why a copy cannot be used, and shows main\'s refusal', async () => {
    const bridge = makeBridge({ teamUseCopy: async () => fail('io', 'The team’s copy of a.tif does not match its registered sha256; it was not used.') });
    fake.api = bridge.api;
    const w = mount(TeamCopyNotice, { props: { check: owned(match(), match({ id: '44', available: false })) } });
    expect(w.findAll('[data-testid="team-match"]')[1]!.text()).toContain('The team share is not reachable from this machine');
    await w.get('[data-testid="team-use-copy"]').trigger('click');
    await flushPromises();
    expect(bridge.api.teamUseCopy).toHaveBeenCalledWith({ id: '42', mode: 'copy' });
    expect(w.text()).toContain('does not match its registered sha256');
    expect(w.find('[data-testid="team-used"]').exists()).toBe(false);
  });

  it('warns when the team check could not be made, and shows nothing when the team owns nothing', async () => {
    fake.api = makeBridge().api;
    const w = mount(TeamCopyNotice, { props: { check: { state: 'unchecked', matches: [], claim: null, reason: 'The team catalog could not be asked: ECONNREFUSED.' } } });
    expect(w.get('[data-testid="team-check"]').text()).toMatch(/The team check could not be made: The team catalog could not be asked: ECONNREFUSED\. Buying may pay again/);
    await w.setProps({ check: { state: 'none' as const, matches: [], claim: null, reason: null } } as never);
    expect(w.find('[data-testid="team-check"]').exists()).toBe(false);
  });

  it('a teammate buying it now: waits for their copy, then offers it', async () => {
    const bridge = makeBridge({ teamWait: async () => ok(owned(match({ acquiredBy: 'bob' }))) });
    fake.api = bridge.api;
    const purchase = { kind: 'composite' as const, request: { Date: '2026-10-01', Model: 'Stratus2' } };
    const w = mount(TeamCopyNotice, { props: { check: { state: 'claimed', matches: [], claim: { holder: 'bob', expiresAt: '2026-11-25T23:40:00.000Z' }, reason: null }, purchase } });
    expect(w.get('[data-testid="team-check"]').text()).toContain('bob is buying this now (their claim holds until 2026-11-25 23:40 UTC).');
    await w.get('[data-testid="team-wait"]').trigger('click');
    await flushPromises();
    expect(bridge.api.teamWait).toHaveBeenCalledWith(purchase, { callId: expect.any(Number) });
    expect(w.get('[data-testid="team-check"]').attributes('data-state')).toBe('owned');
    expect(w.get('[data-testid="team-match"]').text()).toContain('Bought by bob on 2026-10-03 (UTC)');
  });

  it('without the share but with the read URL: previews it on the map (main reads it) or copies it; main\'s refusal is shown', async () => {
    const item = { id: 'team-42', path: 'https://share.example.org/rasters/composite/2026/a.tif', size: 10, sha256: 'a'.repeat(64), request: null, kind: 'composite' as const, date: '2026-10-01', model: 'Stratus2', constellations: [], bands: ['B4', 'B3', 'B2'], epsg: 32633, resolution: 10, width: 0, height: 0, bounds4326: null, createdAt: '2026-10-03T09:12:00.000Z', source: 'download' as const };
    let answer: ReturnType<typeof ok> | ReturnType<typeof fail> = fail('io', 'The team\'s read URL https://share.example.org/rasters/composite/2026/a.tif could not be used: the server answered HTTP 404 (no such file).');
    const bridge = makeBridge({ teamPreview: async () => answer });
    fake.api = bridge.api;
    const opened: string[] = [];
    usePreviewStore().openOnMap = async (id: string) => void opened.push(id);
    const w = mount(TeamCopyNotice, { props: { check: owned(match({ available: false, readable: true }), match({ id: '43', available: false, readable: false })) } });
    const [readable, unreadable] = w.findAll('[data-testid="team-match"]');
    expect(readable!.text()).toContain('reads the file over your organisation’s read URL');
    expect(readable!.find('[data-testid="team-use-link"]').exists()).toBe(false);
    expect(unreadable!.find('[data-testid="team-preview"]').exists()).toBe(false);
    expect(unreadable!.text()).toContain('the file cannot be opened now');
    await readable!.get('[data-testid="team-preview"]').trigger('click');
    await flushPromises();
    expect(bridge.api.teamPreview).toHaveBeenCalledWith({ id: '42' });
    expect(w.text()).toContain('answered HTTP 404 (no such file)');
    expect(opened).toEqual([]);
    answer = ok(item);
    await readable!.get('[data-testid="team-preview"]').trigger('click');
    await flushPromises();
    expect(opened).toEqual(['team-42']);
    expect(useLibraryStore().entry('team-42')).toEqual(item);
    expect(w.get('[data-testid="team-previewed"]').text()).toContain('0.00 EUR');
  });
});
