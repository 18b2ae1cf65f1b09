import type { ResponseOf } from '../../../../preload/contract';

/** One local raster as `library:query` lists it: the record the Library, its analyses and the preview engine share. */
export type LibraryItem = ResponseOf<'library:query'>['entries'][number];
