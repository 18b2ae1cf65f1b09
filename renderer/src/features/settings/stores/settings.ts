import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { IpcError, ResponseOf, Result } from '../../../../../preload/contract';
import { getBridge } from '../../../platform/bridge';
import { createRequest } from '../../../platform/lib/request';
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
  const keyTests = ref<Record<string, KeyTest | { status: 'testing'; message: string }>>({});
  /** The last failure of a profile action, with its field errors, per action name ("create", "key:<id>"...). */
  const actionErrors = ref<Record<string, IpcError>>({});
  const saving = ref<string | null>(null);

  const profiles = computed(() => listing.data?.profiles ?? []);
  const activeProfile = computed(() => profiles.value.find((p) => p.active) ?? null);
  const keychainError = computed(() => listing.data?.keychainError ?? null);
  const settings = computed<AppSettings | null>(() => settingsReq.data);

  async function loadProfiles(): Promise<void> {
    await listing.run(() => getBridge().profilesList());
  }

  async function loadSettings(): Promise<void> {
    const r = await settingsReq.run(() => getBridge().settingsGet());
    if (r.ok) applyTheme(r.data.theme);
  }

  async function act<T>(name: string, call: () => Promise<Result<T>>, opts: { restart?: boolean } = {}): Promise<Result<T>> {
    saving.value = name;
    const r = await call();
    saving.value = null;
    const errors = { ...actionErrors.value };
    if (r.ok) delete errors[name];
    else errors[name] = r.error;
    actionErrors.value = errors;
    if (r.ok) {
      await loadProfiles();
      if (opts.restart) await session.restart();
    }
    return r;
  }

  /** Creates a profile (the optional key goes straight to the keychain). */
  function createProfile(input: { name: string; baseUrl: string; key?: string }) {
    const req = { name: input.name, baseUrl: input.baseUrl, ...(input.key ? { key: input.key } : {}) };
    return act('create', () => getBridge().profilesCreate(req));
  }

  function updateProfile(id: string, patch: { name?: string; baseUrl?: string }) {
    return act(`update:${id}`, () => getBridge().profilesUpdate({ id, ...patch }), { restart: activeProfile.value?.id === id });
  }

  function deleteProfile(id: string) {
    return act(`delete:${id}`, () => getBridge().profilesDelete({ id }), { restart: activeProfile.value?.id === id });
  }

  function activate(id: string) {
    return act(`activate:${id}`, () => getBridge().profilesActivate({ id }), { restart: true });
  }

  /** Sets or replaces a key; the caller clears its input, the key never comes back. */
  function setKey(id: string, key: string) {
    const restart = activeProfile.value?.id === id || profiles.value.find((p) => p.id === id)?.active === true;
    return act(`key:${id}`, () => getBridge().profilesSetKey({ id, key }), { restart });
  }

  /**
   * Asks main to send the key to the profile's new origin. Main asks the analyst in its own
   * native dialog (the page cannot answer it); where there is none, the key must be entered again.
   */
  function confirmOrigin(id: string) {
    const restart = profiles.value.find((p) => p.id === id)?.active === true;
    return act(`key:${id}`, () => getBridge().profilesConfirmOrigin({ id }), { restart });
  }

  function deleteKey(id: string) {
    return act(`key:${id}`, () => getBridge().profilesDeleteKey({ id }), { restart: activeProfile.value?.id === id });
  }

  async function testKey(id: string): Promise<void> {
    keyTests.value = { ...keyTests.value, [id]: { status: 'testing', message: 'Testing…' } };
    const r = await getBridge().profilesTestKey({ id });
    keyTests.value = {
      ...keyTests.value,
      [id]: r.ok ? r.data : { status: 'network', message: r.error.message },
    };
  }

  /** Changes some settings and applies the theme at once. */
  async function update(patch: Partial<AppSettings>): Promise<Result<AppSettings>> {
    const r = await getBridge().settingsSet(patch);
    if (r.ok) {
      settingsReq.data = r.data;
      applyTheme(r.data.theme);
      const errors = { ...actionErrors.value };
      delete errors.settings;
      actionErrors.value = errors;
    } else actionErrors.value = { ...actionErrors.value, settings: r.error };
    return r;
  }

  /** The saved map view, asked directly: App's own loadSettings may supersede a shared request. */
  async function savedMapView(): Promise<NonNullable<AppSettings['mapView']> | null> {
    const r = await getBridge().settingsGet();
    return r.ok ? (r.data.mapView ?? null) : null;
  }

  /** Keeps the map's view for the next start (the settings shown are not reloaded for it). */
  function saveMapView(mapView: NonNullable<AppSettings['mapView']>): Promise<Result<AppSettings>> {
    return getBridge().settingsSet({ mapView });
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
