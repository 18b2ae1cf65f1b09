/**
 * The Turf functions Swath uses, each from its own package rather than the @turf/turf umbrella
 * (about a hundred packages, most of them never called). Import this as `turf`; a function
 * missing here is a new dependency to add to package.json.
 */
export { area } from '@turf/area';
export { bbox } from '@turf/bbox';
export { bboxClip } from '@turf/bbox-clip';
export { bboxPolygon } from '@turf/bbox-polygon';
export { booleanIntersects } from '@turf/boolean-intersects';
export { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
export { difference } from '@turf/difference';
export { feature, featureCollection, polygon } from '@turf/helpers';
export { intersect } from '@turf/intersect';
export { union } from '@turf/union';
