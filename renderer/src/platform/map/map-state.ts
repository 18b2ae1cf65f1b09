import { reactive } from 'vue';

/**
 * Live figures of the map for the status bar and toolbars: pointer position,
 * scale and zoom, and what the AOI tools are doing.
 */
export const mapState = reactive({
  /** Pointer position in degrees, null when the pointer is off the map. */
  pointer: null as { lon: number; lat: number } | null,
  /** Scale denominator at the view centre (1:n), for 96 dpi screens. */
  scale: null as number | null,
  zoom: null as number | null,
  /** The AOI draw tool in use, if any. */
  drawing: null as 'polygon' | 'rectangle' | null,
  /** The AOI draw tools are installed (they load after the map's first frame). */
  aoiTools: false,
  /** Whether AOI vertices can be dragged. */
  editing: true,
  /** The map has rendered its first frame. */
  ready: false,
  /** How the start view was chosen (null until decided). */
  startView: null as 'last-view' | 'orders' | 'default' | 'moved' | null,
});
