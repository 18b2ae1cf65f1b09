/** Cartography shared by the brief and the timelapse: scale bar, sources, dates, north arrow, frame ticks. */
export { lengthLabel, mercatorGroundWidth, mercatorLatitude, scaleBar, type ScaleBar } from './scale-bar';
export { GEONAMES_LICENCE, sourceLines, type SourceUse } from './sources';
export { utcDateLabel, utcDatesLabel } from './date-label';
export { NORTH_ARROW_LEFT, NORTH_ARROW_N, NORTH_ARROW_RIGHT, northArrowSvg } from './north-arrow';
export { degreeLabel, frameTicks, niceStep, type FrameTick } from './frame-ticks';
