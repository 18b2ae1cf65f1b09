import { defineStore } from 'pinia';
import { computed } from 'vue';
import type { IpcError, ResponseOf, Result } from '../../../../../preload/contract';
import { ask, createRequest, keyedRequests, type Call } from '../../../platform/request';
import { useSessionStore } from '../../../platform/stores/session';

/** A profile as the renderer may know it (key presence and last 4 characters, never the key). */
export type ProfileSummary = ResponseOf<'profiles:list'>['profiles'][number];

/** User settings kept by main. */
export type AppSettings = ResponseOf<'settings:get'>;

/** Outcome of testing a stored key. */
export type KeyTest = ResponseOf<'profiles:test-key'>;

/**
 * Service profiles (name, base URL, write-only key in the OS keychain) and
 * user settings (download folder, theme, OSM layer). Every change of which
 * service or key is used restarts the session so cached data is reloaded.
 */
export const useSettingsStore = defineStore('settings', () => {
  const session = useSessionStore();
  const listing = createRequest<ResponseOf<'profiles:list'>>();
  const settingsReq = createRequest<AppSettings>();
  /** One request per profile action ("create", "key:<id>"...) and "settings" for the settings' changes. */
  const actions = keyedRequests<unknown>();
  const keyTestReqs = keyedRequests<KeyTest>();
  /** Each profile's key test: running, main's verdict, or why it could not be asked. */
  const keyTests = computed(() => {
    const out: Record<string, KeyTest | { status: 'testing' | 'network'; message: string }> = {};
    for (const [id, r] of Object.entries(keyTestReqs.all)) {
      if (r.loading) out[id] = { status: 'testing', message: 'Testing…' };
      else if (r.error) out[id] = { status: 'network', message: r.error.message };
      else if (r.data) out[id] = r.data;
    }
    return out;
  });
  /** The last failure of a profile action, with its field errors, per action name ("create", "key:<id>"...). */
  const actionErrors = computed(() => {
    const out: Record<string, IpcError> = {};
    for (const [name, r] of Object.entries(actions.all)) if (r.error) out[name] = r.error;
    return out;
  });
  /** The action running, if any. */
  const saving = computed(() => Object.keys(actions.all).find((name) => actions.all[name]!.loading) ?? null);

  const profiles = computed(() => listing.data?.profiles ?? []);
  const activeProfile = computed(() => profiles.value.find((p) => p.active) ?? null);
  const keychainError = computed(() => listing.data?.keychainError ?? null);
  const settings = computed<AppSettings | null>(() => settingsReq.data);

  async function loadProfiles(): Promise<void> {
    await listing.run((bridge) => bridge.profilesList());
  }

  async function loadSettings(): Promise<void> {
    const r = await settingsReq.run((bridge) => bridge.settingsGet());
    if (r.ok) applyTheme(r.data.theme);
  }

  async function act<T>(name: string, call: Call<T>, opts: { restart?: boolean } = {}): Promise<Result<T>> {
    const r = (await actions.of(name).run(call)) as Result<T>;
    if (r.ok) {
      await loadProfiles();
      if (opts.restart) await session.restart();
    }
    return r;
  }

  /** Creates a profile (the optional key goes straight to the keychain). */
  function createProfile(input: { name: string; baseUrl: string; key?: string }) {
    const req = { name: input.name, baseUrl: input.baseUrl, ...(input.key ? { key: input.key } : {}) };
    return act('create', (bridge) => bridge.profilesCreate(req));
  }

  function updateProfile(id: string, patch: { name?: string; baseUrl?: string }) {
    return act(`update:${id}`, (bridge) => bridge.profilesUpdate({ id, ...patch }), { restart: activeProfile.value?.id === id });
  }

  function deleteProfile(id: string) {
    return act(`delete:${id}`, (bridge) => bridge.profilesDelete({ id }), { restart: activeProfile.value?.id === id });
  }

  function activate(id: string) {
    return act(`activate:${id}`, (bridge) => bridge.profilesActivate({ id }), { restart: true });
  }

  /** Sets or replaces a key; the caller clears its input, the key never comes back. */
  function setKey(id: string, key: string) {
    const restart = activeProfile.value?.id === id || profiles.value.find((p) => p.id === id)?.active === true;
    return act(`key:${id}`, (bridge) => bridge.profilesSetKey({ id, key }), { restart });
  }

  /**
   * Asks main to send the key to the profile's new origin. Main asks the analyst in its own
   * native dialog (the page cannot answer it); where there is none, the key must be entered again.
   */
  function confirmOrigin(id: string) {
    const restart = profiles.value.find((p) => p.id === id)?.active === true;
    return act(`key:${id}`, (bridge) => bridge.profilesConfirmOrigin({ id }), { restart });
  }

  function deleteKey(id: string) {
    return act(`key:${id}`, (bridge) => bridge.profilesDeleteKey({ id }), { restart: activeProfile.value?.id === id });
  }

  async function testKey(id: string): Promise<void> {
    await keyTestReqs.of(id).run((bridge) => bridge.profilesTestKey({ id }));
  }

  /** Changes some settings and applies the theme at once. */
  async function update(patch: Partial<AppSettings>): Promise<Result<AppSettings>> {
    const r = (await actions.of('settings').run((bridge) => bridge.settingsSet(patch))) as Result<AppSettings>;
    if (r.ok) {
      settingsReq.data = r.data;
      applyTheme(r.data.theme);
    }
    return r;
  }

  /** The saved map view, asked directly: App's own loadSettings may supersede a shared request. */
  async function savedMapView(): Promise<NonNullable<AppSettings['mapView']> | null> {
    const r = await ask((bridge) => bridge.settingsGet());
    return r.ok ? (r.data.mapView ?? null) : null;
  }

  /** Keeps the map's view for the next start (the settings shown are not reloaded for it). */
  function saveMapView(mapView: NonNullable<AppSettings['mapView']>): Promise<Result<AppSettings>> {
    return ask((bridge) => bridge.settingsSet({ mapView }));
  }

  return {
    savedMapView, saveMapView, listing, settingsReq, profiles, activeProfile, keychainError, settings, keyTests, actionErrors, saving,
    loadProfiles, loadSettings, createProfile, updateProfile, deleteProfile, activate, setKey, confirmOrigin, deleteKey, testKey, update,
  };
});

/**
 * Forces a theme on the document ('system' follows the OS). Only a change is announced ('swath-theme':
 * the map restyles its basemap, a redraw of every country): the settings read at every start find
 * the theme the page already has.
 */
export function applyTheme(theme: AppSettings['theme']): void {
  if (typeof document === 'undefined') return;
  const root = document.documentElement;
  const before = root.dataset.theme;
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
  if (root.dataset.theme !== before) document.dispatchEvent(new CustomEvent('swath-theme'));
}
