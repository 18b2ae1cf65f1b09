/**
 * Entry of the landscape's render threads (see render-threads.ts): renders one chunk of a
 * request's full-resolution pixels into the shared buffer it is sent, nodata outside the AOI. The
 * shading is warmed up first (warm-up.ts), before the thread takes its first chunk.
 * Bundled as out/main/simulator-render-worker.js.
 */
import { nodataOf } from '../../main/geotiff/samples.js';
import { serveTasks } from '../../main/shared/worker-pool.js';
import { LevelRenderer } from './level-render.js';
import type { RenderPing, RenderTask } from './render-threads.js';
import { warmUpLandscape } from './warm-up.js';

/** The renderers of the last writes this thread served (most recent last): a write's chunks reuse its plan and its block row's AOI mask. */
const renderers = new Map<string, LevelRenderer>();
const KEPT = 2;

function rendererOf(task: RenderTask): LevelRenderer {
  let r = renderers.get(task.write);
  if (r) {
    renderers.delete(task.write);
  } else {
    const made = LevelRenderer.of(task.req, task.bigTiff);
    if ('error' in made) throw new Error(made.error);
    r = made;
  }
  renderers.set(task.write, r);
  while (renderers.size > KEPT) renderers.delete(renderers.keys().next().value!);
  return r;
}

warmUpLandscape();

serveTasks<RenderTask | RenderPing, null>(async (task) => {
  if ('ping' in task) return { result: null };
  const r = rendererOf(task);
  const { rect } = task;
  const rowStride = rect.width * task.req.bands.length;
  const n = rowStride * rect.height;
  const out = task.req.dataType === 'INT16' ? new Int16Array(task.buffer, 0, n) : new Uint8Array(task.buffer, 0, n);
  out.fill(nodataOf(task.req.dataType));
  r.render({ level: 0, ...rect, rowStride }, out);
  return { result: null };
});
