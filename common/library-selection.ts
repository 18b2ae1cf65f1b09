/**
 * How many rasters the Library's selection hands on, shared by main (which refuses more, naming the
 * field) and the renderer (whose list selects no more).
 */

/** The most rasters a selection holds (a film's frames; main's `library:query` answers as many ids at once). */
export const LIBRARY_SELECTION_MAX = 500;
/** The most rasters one brief's page shows (each has its legend). */
export const BRIEF_RASTERS_MAX = 8;
