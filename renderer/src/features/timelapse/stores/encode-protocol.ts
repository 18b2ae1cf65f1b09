/** Messages between the film store and its encoding worker (encode-worker.ts). */

/** A film's container and how it is encoded: WebM holds VP9, MP4 H.264, GIF one palette per film. */
export type FilmFormat = 'webm' | 'mp4' | 'gif';

/** To the worker. */
export type ToEncoder =
  | { type: 'start'; format: FilmFormat; width: number; height: number; fps: number; dither: boolean }
  /** GIF only, before any frame: pixels sampled from every frame, for the film's one palette. */
  | { type: 'palette'; rgba: Uint8ClampedArray }
  /** One frame, shown `repeat` frame times (more than 1 for the pause on the last). Video: an ImageBitmap; GIF: its RGBA. */
  | { type: 'frame'; bitmap?: ImageBitmap; rgba?: Uint8ClampedArray; repeat: number }
  | { type: 'finish' };

/** From the worker. */
export type FromEncoder =
  | { type: 'encoded'; frames: number }
  | { type: 'done'; bytes: ArrayBuffer; frames: number }
  | { type: 'error'; message: string };
