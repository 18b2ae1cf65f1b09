import type OlMap from 'ol/Map';
import type { BriefMap } from '../model/print-page';

/**
 * The map drawn again at print size (OpenLayers' print way): the map's size is set to the print
 * pixels and its resolution divided so the print shows at least what the window shows, every layer's
 * canvas is composed onto one once the frame is complete, then the window's size and view come back.
 * The AOI layer is left out: the page draws the AOI as a vector outline.
 */
export async function captureMap(map: OlMap, width: number, height: number): Promise<BriefMap> {
  const view = map.getView();
  const size = map.getSize();
  const resolution = view.getResolution();
  if (!size || !resolution || !size[0] || !size[1]) throw new Error('The map is not drawn yet.');
  const [w0, h0] = size as [number, number];
  const pr = window.devicePixelRatio || 1;
  const target: [number, number] = [width / pr, height / pr];
  const scaling = Math.min(target[0] / w0, target[1] / h0);
  const hidden = map.getLayers().getArray().filter((l) => l.get('swathAoi') && l.getVisible());
  for (const l of hidden) l.setVisible(false);
  const background = getComputedStyle(map.getViewport()!).backgroundColor || getComputedStyle(map.getTargetElement()!).backgroundColor;
  try {
    const composed = new Promise<HTMLCanvasElement>((resolve) => {
      map.once('rendercomplete', () => resolve(compose(map, width, height, pr, background)));
    });
    map.setSize(target);
    view.setResolution(resolution / scaling);
    map.render();
    const canvas = await composed;
    const extent = view.calculateExtent(target) as [number, number, number, number];
    let image = canvas.toDataURL('image/png');
    // A photo-like map compresses badly as PNG: past 9 MB it goes as a JPEG of high quality.
    if (image.length > 9_000_000) image = canvas.toDataURL('image/jpeg', 0.92);
    return { image, widthPx: width, heightPx: height, extent, rotation: view.getRotation() };
  } finally {
    map.setSize(size);
    view.setResolution(resolution);
    for (const l of hidden) l.setVisible(true);
  }
}

/** Every layer canvas of the map onto one `width` × `height` canvas (device pixels), over the map's background. */
function compose(map: OlMap, width: number, height: number, pr: number, background: string): HTMLCanvasElement {
  const out = document.createElement('canvas');
  out.width = width;
  out.height = height;
  const ctx = out.getContext('2d')!;
  ctx.fillStyle = background && background !== 'rgba(0, 0, 0, 0)' ? background : '#ffffff';
  ctx.fillRect(0, 0, width, height);
  for (const canvas of map.getViewport()!.querySelectorAll<HTMLCanvasElement>('.ol-layer canvas, canvas.ol-layer')) {
    if (canvas.width === 0 || canvas.height === 0) continue;
    const parent = canvas.parentElement as HTMLElement;
    const opacity = parent.style.opacity || canvas.style.opacity;
    ctx.globalAlpha = opacity === '' ? 1 : Number(opacity);
    const m = /^matrix\(([^(]*)\)$/.exec(canvas.style.transform);
    const matrix = m ? m[1]!.split(',').map(Number) : [parseFloat(canvas.style.width) / canvas.width, 0, 0, parseFloat(canvas.style.height) / canvas.height, 0, 0];
    const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = matrix;
    ctx.setTransform(a * pr, b * pr, c * pr, d * pr, e * pr, f * pr);
    const fill = parent.style.backgroundColor;
    if (fill) {
      ctx.fillStyle = fill;
      ctx.fillRect(0, 0, canvas.width, canvas.height);
    }
    ctx.drawImage(canvas, 0, 0);
  }
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.globalAlpha = 1;
  return out;
}
