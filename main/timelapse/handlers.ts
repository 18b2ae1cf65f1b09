import type { HandlerTable } from '../ipc';
import type { FilmWriter } from './films.js';

/** The `timelapse:*` channels, as thin adapters over the {@link FilmWriter}. */
export function timelapseHandlers(films: FilmWriter): Pick<HandlerTable, 'timelapse:begin' | 'timelapse:chunk' | 'timelapse:finish' | 'timelapse:abort'> {
  return {
    'timelapse:begin': async (req) => ({ id: await films.begin(req) }),
    'timelapse:chunk': async ({ id, offset, data }) => ({ received: await films.chunk(id, offset, data) }),
    'timelapse:finish': ({ id }) => films.finish(id),
    'timelapse:abort': async ({ id }) => ({ aborted: await films.drop(id) }),
  };
}
