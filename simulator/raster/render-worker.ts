/**
 * A render thread of the demo service (see render-pool.ts): renders blocks of large images with
 * the same code as the service's own thread. Keeps the renderer of the last few requests, so a
 * request's plan and projection are built once per thread, not once per block.
 */
import { serveTasks } from '../../main/shared/worker-pool.js';
import { LevelRenderer } from './level-render.js';
import type { RenderTask } from './render-pool.js';

const KEEP = 4;
const renderers = new Map<number, LevelRenderer>();

function rendererFor(task: RenderTask): LevelRenderer {
  let r = renderers.get(task.image);
  if (r) return r;
  const made = LevelRenderer.of(task.req, task.bigTiff);
  if ('error' in made) throw new Error(made.error);
  r = made;
  renderers.set(task.image, r);
  while (renderers.size > KEEP) renderers.delete(renderers.keys().next().value!);
  return r;
}

serveTasks<RenderTask, ArrayBuffer>(async (task) => {
  const out = task.block;
  rendererFor(task).render(task.rect, out);
  return { result: out.buffer as ArrayBuffer, transfer: [out.buffer as ArrayBuffer] };
});
