import { applyPalette, GIFEncoder, nearestColorIndex, quantize, type GifEncoder, type Palette } from 'gifenc';
import { BufferTarget, Mp4OutputFormat, Output, QUALITY_VERY_HIGH, VideoSample, VideoSampleSource, WebMOutputFormat } from 'mediabunny';
import type { FromEncoder, ToEncoder } from './encode-protocol';

/**
 * The film encoder, in a Web Worker so the window stays responsive: WebM (VP9) and MP4 (H.264)
 * through WebCodecs and mediabunny's muxers, GIF through gifenc with one palette for the whole film
 * (dithering optional). Frames arrive in order; the store terminates the worker to cancel.
 */

const scope = self as unknown as { postMessage(m: FromEncoder, transfer?: Transferable[]): void; onmessage: ((e: MessageEvent<ToEncoder>) => void) | null };

let start: Extract<ToEncoder, { type: 'start' }> | null = null;
let video: { output: Output; source: VideoSampleSource } | null = null;
let gif: GifEncoder | null = null;
let palette: Palette | null = null;
let frames = 0;
/** Messages are handled one after another (each waits for the encoder). */
let chain: Promise<void> = Promise.resolve();

/** Floyd-Steinberg error diffusion onto the palette (when dithering is asked for). */
function dithered(rgba: Uint8ClampedArray, width: number, height: number, p: Palette): Uint8Array {
  const err = new Float32Array(width * height * 3);
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const px = [0, 1, 2].map((c) => Math.min(255, Math.max(0, rgba[i * 4 + c]! + err[i * 3 + c]!)));
      const k = nearestColorIndex(p, px);
      out[i] = k;
      const q = p[k]!;
      const spread = (dx: number, dy: number, w: number) => {
        const xx = x + dx;
        const yy = y + dy;
        if (xx < 0 || xx >= width || yy >= height) return;
        const j = (yy * width + xx) * 3;
        for (let c = 0; c < 3; c++) err[j + c] = err[j + c]! + ((px[c]! - q[c]!) * w) / 16;
      };
      spread(1, 0, 7);
      spread(-1, 1, 3);
      spread(0, 1, 5);
      spread(1, 1, 1);
    }
  }
  return out;
}

async function handle(m: ToEncoder): Promise<void> {
  if (m.type === 'start') {
    start = m;
    if (m.format === 'gif') {
      gif = GIFEncoder();
      return;
    }
    const output = new Output({ format: m.format === 'webm' ? new WebMOutputFormat() : new Mp4OutputFormat({ fastStart: 'in-memory' }), target: new BufferTarget() });
    // Realtime: the encoder's fast settings (software VP9 in 'quality' mode takes about a second a
    // frame at 1,000 px on a busy machine); the worker waits for each frame, so none is dropped.
    const source = new VideoSampleSource({ codec: m.format === 'webm' ? 'vp9' : 'avc', bitrate: QUALITY_VERY_HIGH, keyFrameInterval: 2, latencyMode: 'realtime' });
    output.addVideoTrack(source, { frameRate: m.fps });
    await output.start();
    video = { output, source };
    return;
  }
  if (!start) throw new Error('The encoder was not started.');
  if (m.type === 'palette') {
    palette = quantize(m.rgba, 256);
    return;
  }
  if (m.type === 'frame') {
    const { width, height, fps } = start;
    if (gif) {
      if (!palette || !m.rgba) throw new Error('A GIF frame needs the film\'s palette and its pixels.');
      const index = start.dither ? dithered(m.rgba, width, height, palette) : applyPalette(m.rgba, palette);
      gif.writeFrame(index, width, height, { palette: frames === 0 ? palette : null, delay: (1000 * m.repeat) / fps, repeat: 0 });
      frames++;
    } else if (video && m.bitmap) {
      for (let r = 0; r < m.repeat; r++) {
        const sample = new VideoSample(m.bitmap, { timestamp: frames / fps, duration: 1 / fps });
        await video.source.add(sample);
        sample.close();
        frames++;
      }
      m.bitmap.close();
    } else {
      throw new Error('A video frame needs its bitmap.');
    }
    scope.postMessage({ type: 'encoded', frames });
    return;
  }
  // finish
  let bytes: ArrayBuffer;
  if (gif) {
    gif.finish();
    bytes = gif.bytes().slice().buffer;
  } else {
    video!.source.close();
    await video!.output.finalize();
    bytes = (video!.output.target as BufferTarget).buffer!;
  }
  scope.postMessage({ type: 'done', bytes, frames }, [bytes]);
}

scope.onmessage = (e) => {
  chain = chain.then(() => handle(e.data)).catch((err: unknown) => {
    scope.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  });
};
