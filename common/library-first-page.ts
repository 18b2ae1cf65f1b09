/**
 * The Library's first page as the panel opens (`library:query`: unfiltered, newest date first,
 * time series grouped, one window of rows). Main answers it ahead, at start, and keeps the answer
 * while the library is unchanged, so opening the panel does not wait for the list's walk. Main's
 * library and the renderer's Library store share it.
 */
export const LIBRARY_FIRST_PAGE = { source: 'all', sort: 'date-desc', offset: 0, limit: 100, series: true } as const;
