import { inject, provide, type InjectionKey } from 'vue';
import { copyText } from '../lib/clipboard';
import { showGeometry } from '../map/vector-layers';

/**
 * What recognised values in a result view can do: copy, "use" a GUID in a
 * form, and "show on map". ResultView provides it; DataTable and ValueCell
 * use it, or these defaults when used on their own.
 */
export interface ResultContext {
  /** Emits "use in form" for a GUID; null hides the button. */
  useGuid: ((e: { key: string; value: string; path: string }) => void) | null;
  /** Label of the "use" button, e.g. "Use in form" or "Pick tile". */
  guidLabel: string;
  /** Draws a geometry on the map (and lets the owner react). */
  showGeometry: (e: { key: string; geometry: unknown; path: string }) => void;
  /** Property names to emphasise (e.g. account limits). */
  highlight: RegExp | null;
  /** Copies a value; reports the outcome. */
  copy: (text: string, what: string) => void;
}

const KEY: InjectionKey<ResultContext> = Symbol('swath-result-context');

/** The defaults: no "use", geometry drawn on the shared result layer, plain copy. */
export const defaultResultContext: ResultContext = {
  useGuid: null,
  guidLabel: 'Use',
  showGeometry: ({ geometry }) => void showGeometry(geometry),
  highlight: null,
  copy: (text) => void copyText(text),
};

/** Provides the context to descendants. */
export function provideResultContext(ctx: ResultContext): void {
  provide(KEY, ctx);
}

/** The nearest provided context, or the defaults. */
export function useResultContext(): ResultContext {
  return inject(KEY, defaultResultContext);
}
