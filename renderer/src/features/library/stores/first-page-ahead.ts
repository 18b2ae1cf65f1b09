import { LIBRARY_FIRST_PAGE } from '../../../../../common/library-first-page';
import type { RequestOf, ResponseOf, Result } from '../../../../../preload/contract';
import { ask, listen } from '../../../platform/request';

/**
 * The Library's first page asked as the analyst presses the rail's Library button (with the panel's
 * code), not once the panel has mounted: main answers it from the page it keeps, so the answer comes
 * while the code loads. In the first-paint bundle (the panel registry's), so it holds no store.
 *
 * The answer is for the panel's first query only, and only while it can be trusted: any
 * `library:changed` after it was asked, or {@link KEEP_MS} without the panel taking it (a press that
 * did not become a click), drops it, and the panel asks main itself.
 */
type Answer = Result<ResponseOf<'library:query'>>;

/** How long an answer asked ahead waits for the panel. */
export const KEEP_MS = 10_000;

let ahead: { answer: Promise<Answer>; off: () => void; timer: ReturnType<typeof setTimeout> } | null = null;

function drop(): void {
  if (!ahead) return;
  ahead.off();
  clearTimeout(ahead.timer);
  ahead = null;
}

/** Asks main for the Library's first page now, unless it is asked already. */
export function askFirstPageAhead(): void {
  if (ahead) return;
  // Listening before asking: a change main makes after this point drops the answer.
  const off = listen('library:changed', drop);
  ahead = { answer: ask((bridge) => bridge.libraryQuery({ ...LIBRARY_FIRST_PAGE })), off, timer: setTimeout(drop, KEEP_MS) };
}

/** Whether `request` asks exactly the first page (undefined fields are not asked). */
function isFirstPage(request: RequestOf<'library:query'>): boolean {
  const asked = Object.entries(request).filter(([, v]) => v !== undefined);
  const first = Object.entries(LIBRARY_FIRST_PAGE) as [string, unknown][];
  return asked.length === first.length && first.every(([k, v]) => (request as Record<string, unknown>)[k] === v);
}

/**
 * The answer asked ahead, once, when `request` is the first page and it is still good; null otherwise.
 * An error answered ahead is not passed on: main is asked again.
 */
export function takeFirstPageAhead(request: RequestOf<'library:query'>): Promise<Answer> | null {
  if (!ahead || !isFirstPage(request)) return null;
  const { answer } = ahead;
  drop();
  return answer.then((r) => (r.ok ? r : ask((bridge) => bridge.libraryQuery(request))));
}
