import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ResponseOf } from '../../../../preload/contract';
import { ask, listen } from '../request';
import { copyText } from '../lib/clipboard';
import { useUiStore } from './ui';

/** The admin policy as main reports it. */
export type PolicyView = ResponseOf<'policy:get'>;
/** Where updates stand. */
export type UpdateStatus = ResponseOf<'updates:status'>;
/** Version, contract version and licences. */
export type About = ResponseOf<'app:about'>;

/**
 * Internal distribution in the renderer: the admin policy (what Settings shows
 * as fixed), update state (pushed by main), the About dialog and diagnostics.
 */
export const useDistributionStore = defineStore('distribution', () => {
  const policy = ref<PolicyView | null>(null);
  const updates = ref<UpdateStatus | null>(null);
  const about = ref<About | null>(null);
  const aboutOpen = ref(false);
  /** Whether the diagnostics report names the profiles (off unless the analyst ticks it: names can name customers). */
  const includeProfileNames = ref(false);
  const message = ref<string | null>(null);
  let unsubscribe: (() => void)[] = [];

  const locked = computed(() => new Set(policy.value?.lockedProfileIds ?? []));
  const downloadDirFixed = computed(() => policy.value?.downloadDir ?? null);
  /** The online basemap the map may show: OSM, none, or the policy's XYZ template. */
  const onlineBasemap = computed(() => {
    const b = policy.value?.basemap;
    if (!b || b.online === 'osm') return { kind: 'osm' as const, url: null, attribution: null, fixed: false };
    return { kind: b.online, url: b.xyzUrl, attribution: b.attribution, fixed: true };
  });

  async function load(): Promise<void> {
    const [p, u] = await Promise.all([ask((bridge) => bridge.policyGet()), ask((bridge) => bridge.updatesStatus())]);
    if (p.ok) policy.value = p.data;
    if (u.ok) updates.value = u.data;
  }

  function start(): void {
    unsubscribe.push(listen('updates:state', (s) => (updates.value = s)));
    unsubscribe.push(listen('app:command', (c) => {
      if (c.command === 'about') void openAbout();
      // The system tray's "Downloads" entry opens the window's downloads tray.
      if (c.command === 'downloads') useUiStore().trayOpen = true;
    }));
    void load();
  }

  function stop(): void {
    for (const off of unsubscribe) off();
    unsubscribe = [];
  }

  async function openAbout(): Promise<void> {
    aboutOpen.value = true;
    const r = await ask((bridge) => bridge.appAbout());
    if (r.ok) about.value = r.data;
  }

  /** Puts the diagnostics report on the clipboard; says what happened. */
  async function copyDiagnostics(): Promise<boolean> {
    const r = await ask((bridge) => bridge.diagnosticsGet({ includeProfileNames: includeProfileNames.value }));
    if (!r.ok) {
      message.value = r.error.message;
      return false;
    }
    const copied = await copyText(r.data.text);
    message.value = copied ? 'Diagnostics copied to the clipboard.' : 'The clipboard is not available; use “Save diagnostics…” instead.';
    return copied;
  }

  async function saveDiagnostics(): Promise<void> {
    const r = await ask((bridge) => bridge.diagnosticsSave({ includeProfileNames: includeProfileNames.value }));
    message.value = r.ok ? (r.data.saved ? `Diagnostics saved to ${r.data.path}.` : 'Not saved.') : r.error.message;
  }

  async function checkUpdates(): Promise<void> {
    const r = await ask((bridge) => bridge.updatesCheck());
    if (r.ok) updates.value = r.data;
    else message.value = r.error.message;
  }

  async function setChannel(channel: 'stable' | 'beta'): Promise<void> {
    const r = await ask((bridge) => bridge.updatesSetChannel({ channel }));
    if (r.ok) updates.value = r.data;
    else message.value = r.error.message;
  }

  async function installUpdate(): Promise<void> {
    const r = await ask((bridge) => bridge.updatesInstall());
    if (!r.ok) message.value = r.error.message;
  }

  return {
    policy, updates, about, aboutOpen, message, includeProfileNames, locked, downloadDirFixed, onlineBasemap,
    load, start, stop, openAbout, copyDiagnostics, saveDiagnostics, checkUpdates, setChannel, installUpdate,
  };
});
