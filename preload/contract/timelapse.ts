import { z } from 'zod';
import { boundedText, MAX_ID } from './bounds';

/**
 * Schemas of the timelapse channels: the renderer encodes a film (WebM, MP4 or GIF) and hands its
 * bytes to main in chunks; main checks they are the format they claim and writes the file to the
 * download folder's `exports/`, never over an existing one.
 */

/** The largest film main takes (a 100-frame film at 2,500 px is far smaller). */
export const FILM_MAX_BYTES = 512 * 1024 * 1024;
/** The most bytes one `timelapse:chunk` carries (before base64). */
export const FILM_CHUNK_BYTES = 4 * 1024 * 1024;
/** The most films being written at once. */
export const FILM_OPEN_MAX = 4;

/** A film's container: WebM (VP9), MP4 (H.264) or GIF. */
export const filmFormatSchema = z.enum(['webm', 'mp4', 'gif']);

const namePart = (what: string) => boundedText(60).regex(/^[A-Za-z0-9][A-Za-z0-9.+_-]{0,59}$/, `The ${what} is letters, digits, dots, plus, dashes or underscores (at most 60).`);
const isoDay = boundedText(10).regex(/^\d{4}-\d{2}-\d{2}$/, 'Use YYYY-MM-DD.');

/** Request of `timelapse:begin`: what the film is (its name says it) and how many bytes follow. */
export const filmBeginSchema = z.strictObject({
  format: filmFormatSchema,
  bytes: z.number().int().min(1, 'The film is empty.').max(FILM_MAX_BYTES, `A film is at most ${FILM_MAX_BYTES} bytes.`),
  /** The area, e.g. "aoi-13.400E52.503N" or a series' place. */
  area: namePart('area'),
  /** The band or index shown, e.g. "ndvi", "B4-B3-B2". */
  index: namePart('index'),
  first: isoDay,
  last: isoDay,
  fps: z.number().int().min(1).max(60),
});

/** Request of `timelapse:chunk`: the next bytes of an open film, at `offset` (the bytes received so far). */
export const filmChunkSchema = z.strictObject({
  id: boundedText(MAX_ID).min(1),
  offset: z.number().int().min(0).max(FILM_MAX_BYTES),
  /** Base64 of at most {@link FILM_CHUNK_BYTES} bytes. */
  data: boundedText(Math.ceil(FILM_CHUNK_BYTES / 3) * 4).min(1).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'The chunk is base64.'),
});

/** The timelapse channels, spread into the contract's channel map. */
export const timelapseChannels = {
  /** Opens a film to write: answers its handle. At most {@link FILM_OPEN_MAX} at once. */
  'timelapse:begin': { request: filmBeginSchema, response: z.object({ id: z.string() }) },
  /** Appends a chunk; chunks come in order. */
  'timelapse:chunk': { request: filmChunkSchema, response: z.object({ received: z.number().int() }) },
  /** Checks the bytes are the format claimed and publishes the file under `exports/`. */
  'timelapse:finish': { request: z.strictObject({ id: boundedText(MAX_ID).min(1) }), response: z.object({ file: z.string(), bytes: z.number().int() }) },
  /** Drops an open film (the analyst cancelled); true when there was one. */
  'timelapse:abort': { request: z.strictObject({ id: boundedText(MAX_ID).min(1) }), response: z.object({ aborted: z.boolean() }) },
} as const;
