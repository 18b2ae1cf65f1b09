import { productionStyle } from './production.js';
import { variantStyle } from './variant.js';
import { SHAPE_NAMES, type ShapeStyle, type ShapesName } from './wire.js';

export { SHAPE_NAMES, type ShapeStyle, type ShapesName, type WireOperation } from './wire.js';

const cache = new Map<ShapesName, ShapeStyle>();

/** The style of a name (default production); throws for an unknown one. */
export function shapeStyle(name: string | null | undefined = 'production'): ShapeStyle {
  const key = (name ?? 'production').trim().toLowerCase() || 'production';
  if (!(SHAPE_NAMES as readonly string[]).includes(key)) {
    throw new Error(`Unknown answer style '${name}': use ${SHAPE_NAMES.join(' or ')}.`);
  }
  const n = key as ShapesName;
  let style = cache.get(n);
  if (!style) {
    style = n === 'variant' ? variantStyle() : productionStyle();
    cache.set(n, style);
  }
  return style;
}
