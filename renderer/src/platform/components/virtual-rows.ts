import { computed, onBeforeUnmount, onMounted, ref, watch, type Ref } from 'vue';

/** What a virtualized list tells {@link useVirtualRows}. */
export interface VirtualRowsOptions {
  /** How many rows the list has. */
  count: () => number;
  /** Row i's key (its measured height is kept under it); null when the row is not loaded yet. */
  keyOf: (i: number) => string | null;
  /** The height a row is taken to have before one is measured (px). */
  estimate: number;
  /** The smallest average height (px). */
  minHeight?: number;
  /** Rows drawn beyond each edge of the view. */
  overscan?: number;
  /** The view's height before it is measured (px), e.g. from the scroller's CSS; by default the window's height, at most 800. */
  viewEstimate?: () => number;
}

/** Before the view is measured (and in jsdom, or a hidden panel, which measure 0): lay out as if this tall, or the window's height if less. */
const FALLBACK_VIEW = 800;

/**
 * A list drawn only where it is seen: the scroller (`scroller`) holds a spacer as tall as every row,
 * and the block of drawn rows (`block`, whose children carry `data-row-key`) is moved into view.
 * Heights are measured once drawn; rows not drawn yet count as the measured average. `layout` gives
 * the drawn range (`first`..`last`), the block's offset, the spacer's height and the range in view
 * (`seenFrom`..`seenTo`). Used by the Library and the orders list.
 */
export function useVirtualRows(o: VirtualRowsOptions) {
  const scroller: Ref<HTMLElement | null> = ref(null);
  const block: Ref<HTMLElement | null> = ref(null);
  const scrollTop = ref(0);
  const viewHeight = ref(0);
  /** Measured heights by row key, and their running average. */
  const heights = new Map<string, number>();
  const average = ref(o.estimate);
  /** Bumped when a measurement changed, so the layout follows. */
  const measured = ref(0);
  const overscan = o.overscan ?? 3;

  const heightOf = (i: number): number => {
    const k = o.keyOf(i);
    return (k && heights.get(k)) || average.value;
  };

  const layout = computed(() => {
    void measured.value;
    const total = o.count();
    const top = scrollTop.value;
    const bottom = top + (viewHeight.value || o.viewEstimate?.() || Math.min(FALLBACK_VIEW, globalThis.innerHeight || FALLBACK_VIEW));
    const avg = average.value;
    // Start where the average puts the top, then walk by the known heights to the row at the top.
    let i = Math.min(total, Math.floor(top / avg));
    let pos = i * avg;
    while (i > 0 && pos > top) pos -= heightOf(--i);
    while (i < total && pos + heightOf(i) <= top) pos += heightOf(i++);
    const first = Math.max(0, i - overscan);
    let firstPos = pos;
    for (let k = i - 1; k >= first; k--) firstPos -= heightOf(k);
    let last = i;
    let end = pos;
    while (last < total && end < bottom) end += heightOf(last++);
    last = Math.min(total, last + overscan);
    // Everything below the drawn rows at the average.
    let drawn = 0;
    for (let k = first; k < last; k++) drawn += heightOf(k);
    const height = Math.max(firstPos + drawn + (total - last) * avg, 0);
    return { first, last, offset: Math.max(0, firstPos), height, seenFrom: i, seenTo: Math.min(total, Math.max(i + 1, last - overscan)) };
  });

  function measure(): void {
    const el = block.value;
    if (!el) return;
    let changed = false;
    for (const child of el.children) {
      const key = (child as HTMLElement).dataset.rowKey;
      const h = (child as HTMLElement).offsetHeight;
      if (!key || !h || key.startsWith('row-')) continue;
      if (heights.get(key) !== h) {
        heights.set(key, h);
        changed = true;
      }
    }
    if (changed) {
      let sum = 0;
      for (const h of heights.values()) sum += h;
      average.value = Math.max(o.minHeight ?? 24, Math.round(sum / heights.size));
      measured.value++;
    }
  }

  function onScroll(): void {
    scrollTop.value = scroller.value?.scrollTop ?? 0;
  }

  /** Scrolls so row i is in view (where the layout puts it). */
  function scrollToIndex(i: number): void {
    const el = scroller.value;
    if (!el) return;
    let pos = 0;
    for (let k = 0; k < i; k++) pos += heightOf(k);
    const view = el.clientHeight || FALLBACK_VIEW;
    if (pos < el.scrollTop) el.scrollTop = pos;
    else if (pos + heightOf(i) > el.scrollTop + view) el.scrollTop = pos + heightOf(i) - view;
    onScroll();
  }

  /** Back to the top (a new filter or order). */
  function toTop(): void {
    if (scroller.value) scroller.value.scrollTop = 0;
    scrollTop.value = 0;
  }

  let resize: ResizeObserver | null = null;
  let frame = 0;
  /**
   * Measures in the next frame, before its style and layout: reading heights there lays the page out
   * at most once, in place of the frame's own layout (nothing is left for it), and not at all when
   * nothing changed since the frame before (read right after a render, each read forced a layout,
   * and a measurement that moved the drawn range rendered and forced another, all in one task). Not
   * inside a ResizeObserver's delivery either: a layout change made there would be a "ResizeObserver
   * loop" error (which the window reports as a crash).
   */
  function measureSoon(): void {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      viewHeight.value = scroller.value?.clientHeight ?? 0;
      measure();
    });
  }
  // The view's height is read in the frame after the mount, not here: a read right after the mount
  // forces a layout of the page in the mount's task (15 ms of the Library's first rows); until then
  // the rows drawn fill the estimated view.
  onMounted(() => {
    measureSoon();
    if (typeof ResizeObserver !== 'undefined') {
      resize = new ResizeObserver(measureSoon);
      if (scroller.value) resize.observe(scroller.value);
      if (block.value) resize.observe(block.value);
    }
  });
  onBeforeUnmount(() => {
    resize?.disconnect();
    cancelAnimationFrame(frame);
  });
  // Drawn rows are measured once painted.
  watch(() => [layout.value.first, layout.value.last, o.count()], measureSoon, { flush: 'post' });

  return { scroller, block, layout, average, measureSoon, onScroll, scrollToIndex, toTop };
}
