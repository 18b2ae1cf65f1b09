import { z } from 'zod';

/** Schemas of the brief channel: a one-page print of the map, printed by the host into a PDF or a PNG. */

/** The paper sizes a brief is laid out for, in millimetres (portrait). */
export const BRIEF_PAPERS = { a4: { widthMm: 210, heightMm: 297 }, letter: { widthMm: 215.9, heightMm: 279.4 } } as const;

/** A brief's sheet in millimetres: its paper, turned for landscape. */
export function briefSheetMm(paper: keyof typeof BRIEF_PAPERS, orientation: 'portrait' | 'landscape'): { widthMm: number; heightMm: number } {
  const { widthMm, heightMm } = BRIEF_PAPERS[paper];
  return orientation === 'portrait' ? { widthMm, heightMm } : { widthMm: heightMm, heightMm: widthMm };
}

/**
 * The largest print page `brief:export` takes (markup and style, its images inline as data URLs): a
 * one-page brief's map at 300 dpi as a PNG is a few MB; the browser host's socket carries at most 16 MB.
 */
export const BRIEF_PAGE_MAX_CHARS = 14_000_000;

/** Request of `brief:export`: the print page the renderer laid out, and how main has it printed. */
export const briefExportRequestSchema = z.strictObject({
  format: z.enum(['pdf', 'png']),
  paper: z.enum(['a4', 'letter']),
  orientation: z.enum(['portrait', 'landscape']),
  /** PNG only: dots per inch of the image. */
  dpi: z.union([z.literal(150), z.literal(300)]).optional(),
  /** File name stem, e.g. "brief-ndvi-2026-04-10"; main adds the extension (and -2, -3… when taken). */
  name: z.string().max(120).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,119}$/, 'Use letters, digits, dots, dashes or underscores (at most 120).'),
  /** The page's body markup: text and lines as HTML and SVG, rasters as data: images (no script, no network: main prints it so). */
  body: z.string().min(1, 'The page is empty.').max(BRIEF_PAGE_MAX_CHARS, `At most ${BRIEF_PAGE_MAX_CHARS} characters.`),
  /** The page's style sheet; main sets the paper (@page) itself. */
  style: z.string().max(200_000, 'At most 200000 characters.'),
});

/** Response of `brief:export`. */
export const briefExportSchema = z.object({
  /** The file written under the download folder's exports/. */
  file: z.string(),
  bytes: z.number().int(),
  /** PNG: its size in pixels; PDF: the page in PostScript points. */
  width: z.number(),
  height: z.number(),
});

/** The brief's channels. */
export const briefChannels = {
  /** Prints a one-page brief (PDF, or PNG at 150 or 300 dpi) through the host and writes it to <download folder>/exports/. */
  'brief:export': { request: briefExportRequestSchema, response: briefExportSchema },
} as const;
