import type OlMap from 'ol/Map';

/**
 * The compare divider drawn over the map: a vertical line with a handle the analyst drags (or
 * moves with the arrow keys when focused). It only reports positions; raster-layers.ts clips.
 */

/** A divider on the map. */
export interface SwipeControl {
  setPosition(position: number): void;
  dispose(): void;
}

/** Adds the divider to the map's viewport; `onChange` receives positions 0..1 of the map width. */
export function createSwipeControl(map: OlMap, position: number, onChange: (position: number) => void): SwipeControl {
  const viewport = map.getViewport() as HTMLElement;
  const el = document.createElement('div');
  el.className = 'swath-swipe';
  el.setAttribute('role', 'slider');
  el.setAttribute('aria-label', 'Compare divider');
  el.setAttribute('aria-valuemin', '0');
  el.setAttribute('aria-valuemax', '100');
  el.tabIndex = 0;
  el.dataset.testid = 'swipe-divider';
  Object.assign(el.style, {
    position: 'absolute', top: '0', bottom: '0', width: '0', borderLeft: '2px solid #fff',
    boxShadow: '0 0 0 1px rgba(0,0,0,.45)', zIndex: '5', cursor: 'ew-resize', touchAction: 'none',
  } satisfies Partial<CSSStyleDeclaration>);
  const handle = document.createElement('div');
  Object.assign(handle.style, {
    position: 'absolute', top: '50%', left: '-13px', width: '24px', height: '24px', marginTop: '-12px', borderRadius: '50%',
    background: '#fff', border: '1px solid rgba(0,0,0,.45)', display: 'grid', placeItems: 'center', font: '12px sans-serif', color: '#333',
  } satisfies Partial<CSSStyleDeclaration>);
  handle.textContent = '⇔';
  el.appendChild(handle);
  viewport.appendChild(el);

  let current = position;
  const place = (p: number): void => {
    current = Math.min(1, Math.max(0, p));
    el.style.left = `${current * 100}%`;
    el.setAttribute('aria-valuenow', String(Math.round(current * 100)));
  };
  place(position);

  const fromEvent = (e: PointerEvent): number => {
    const r = viewport.getBoundingClientRect();
    return (e.clientX - r.left) / r.width;
  };
  el.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    e.stopPropagation();
    el.setPointerCapture(e.pointerId);
    const move = (ev: PointerEvent) => {
      place(fromEvent(ev));
      onChange(current);
    };
    const up = () => {
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
  });
  el.addEventListener('keydown', (e) => {
    const step = e.shiftKey ? 0.1 : 0.02;
    if (e.key === 'ArrowLeft') place(current - step);
    else if (e.key === 'ArrowRight') place(current + step);
    else return;
    e.preventDefault();
    e.stopPropagation();
    onChange(current);
  });

  return {
    setPosition: place,
    dispose: () => el.remove(),
  };
}
