/**
 * Keyboard reach of the main actions ("go to" shortcuts): find an action's control by its test id once
 * its panel has rendered it, open what hides it (a tab, a collapsed section), scroll it into view and
 * focus it. Focus only: Enter or Space then runs it, so a shortcut never spends money by itself.
 */

/** What {@link focusAction} did. */
export type FocusOutcome = { ok: true } | { ok: false; reason: 'missing' | 'disabled'; element: HTMLElement | null };

/** Waits (up to `ms`) for an element matching `selector` to be in the document: panels load their code on first use. */
export function whenElement(selector: string, ms = 5_000, root: ParentNode = document): Promise<HTMLElement | null> {
  const found = root.querySelector<HTMLElement>(selector);
  if (found) return Promise.resolve(found);
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      const el = root.querySelector<HTMLElement>(selector);
      if (el) finish(el);
    });
    const timer = setTimeout(() => finish(null), ms);
    function finish(el: HTMLElement | null): void {
      observer.disconnect();
      clearTimeout(timer);
      resolve(el);
    }
    observer.observe(document.body, { childList: true, subtree: true });
  });
}

/** Waits (up to `ms`) for a disabled control to be enabled: a panel just opened may still be loading what it needs. */
function whenEnabled(el: HTMLElement, ms: number): Promise<boolean> {
  if (!(el as HTMLButtonElement).disabled) return Promise.resolve(true);
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (!(el as HTMLButtonElement).disabled) finish(true);
    });
    const timer = setTimeout(() => finish(false), ms);
    function finish(ok: boolean): void {
      observer.disconnect();
      clearTimeout(timer);
      resolve(ok);
    }
    observer.observe(el, { attributes: true, attributeFilter: ['disabled'] });
  });
}

const nextFrame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));

/**
 * Focuses the control `[data-testid=<testid>]`: first clicks the tab `[data-testid=<tab>]` if given and
 * not selected, expands the collapsed panel section around the control, then scrolls and focuses it.
 * Waits up to `waitMs` (5 s) for the control to be rendered. A control still disabled after `enableMs` (1.5 s) cannot take focus: its section's heading button gets it instead.
 */
export async function focusAction(testid: string, options: { tab?: string; waitMs?: number; enableMs?: number } = {}): Promise<FocusOutcome> {
  if (options.tab) {
    const tab = await whenElement(`[data-testid="${options.tab}"]`, options.waitMs);
    if (tab && tab.getAttribute('aria-selected') !== 'true') {
      tab.click();
      await nextFrame();
    }
  }
  const el = await whenElement(`[data-testid="${testid}"]`, options.waitMs);
  if (!el) return { ok: false, reason: 'missing', element: null };
  const section = el.closest<HTMLElement>('section.section.closed');
  if (section) {
    section.querySelector<HTMLButtonElement>('button.head')?.click();
    await nextFrame();
  }
  if (!(await whenEnabled(el, options.enableMs ?? 1_500))) {
    const head = el.closest<HTMLElement>('section.section')?.querySelector<HTMLElement>('button.head') ?? null;
    head?.scrollIntoView({ block: 'nearest' });
    head?.focus();
    return { ok: false, reason: 'disabled', element: el };
  }
  el.scrollIntoView({ block: 'center' });
  el.focus();
  return { ok: true };
}
