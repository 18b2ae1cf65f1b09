/** What one brief holds at most, shared by the print page, the dialog and the buttons that hand it a chart. */

/** The most fields (series) one brief's chart draws, each its own line named in its legend. */
export const BRIEF_SERIES_MAX = 8;
/** The longest notes the dialog takes; how much of them fits the page is the page's to say (notesRoom). */
export const BRIEF_NOTES_MAX = 1200;
