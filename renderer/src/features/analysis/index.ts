/** The analysis feature's public surface: what other features may use of it (the series' place in file names). */
export { seriesPlace } from './model/series-csv';
