/** Films the renderer encoded, checked and written under the download folder's exports/ by main. */
export { FilmWriter, containerMismatch, filmFileName, type FilmFormat, type FilmInfo } from './films.js';
export { timelapseHandlers } from './handlers.js';
