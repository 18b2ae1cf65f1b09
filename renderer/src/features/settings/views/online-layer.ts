import type OlMap from 'ol/Map';
import type TileLayer from 'ol/layer/Tile';
import type OSM from 'ol/source/OSM';
import { reactive, watch } from 'vue';
import { useDistributionStore } from '../../../platform/stores/distribution';
import { useSettingsStore } from '../stores/settings';

/** What the online basemap reports: why its tiles did not load (offline, blocked), null while they do. */
export const onlineBasemapState = reactive({ error: null as string | null });

/**
 * The online basemap as the settings contribute it to the map: shown while the settings' `osmLayer`
 * is on and the policy's `onlineBasemap` allows one (OpenStreetMap, or the internal XYZ server the
 * policy names). Its code and OpenLayers' tile code load the first time it is turned on; a failed
 * tile is reported in {@link onlineBasemapState} (the Settings panel shows it).
 */
export function installOnlineBasemap(map: OlMap): () => void {
  const settings = useSettingsStore();
  const dist = useDistributionStore();
  let online: TileLayer<OSM> | null = null;
  let removed = false;
  const onlineError = (message: string) => (onlineBasemapState.error = message);
  const onlineTiles = () => ({ url: dist.onlineBasemap.kind === 'xyz' ? dist.onlineBasemap.url : null, attribution: dist.onlineBasemap.attribution });
  const onlineWanted = () => (settings.settings?.osmLayer ?? false) && dist.onlineBasemap.kind !== 'none';
  const stopSource = watch(
    () => dist.onlineBasemap,
    () => {
      if (online) void import('./online-basemap').then(({ setOnlineSource }) => online && setOnlineSource(online, onlineTiles(), onlineError));
    },
  );
  const stopShown = watch(
    onlineWanted,
    async (on) => {
      if (!on) onlineBasemapState.error = null;
      if (on && !online) {
        const { createOnlineLayer } = await import('./online-basemap');
        if (removed || online || !onlineWanted()) return;
        online = createOnlineLayer(onlineTiles(), onlineError);
        map.addLayer(online);
      }
      online?.setVisible(onlineWanted());
    },
    { immediate: true },
  );
  return () => {
    removed = true;
    stopSource();
    stopShown();
    if (online) map.removeLayer(online);
    online = null;
    onlineBasemapState.error = null;
  };
}
