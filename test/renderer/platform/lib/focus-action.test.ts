// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { focusAction, whenElement } from '../../../../renderer/src/platform/lib/focus-action';

// jsdom does not lay out, so it has no scrollIntoView; focusing is what is tested.
Element.prototype.scrollIntoView = function scrollIntoView() {};

afterEach(() => {
  document.body.innerHTML = '';
});

/** A panel section like components/Section.vue renders it: closed sections hide their body. */
function section(closed: boolean, inner: string): HTMLElement {
  const s = document.createElement('section');
  s.className = `section${closed ? ' closed' : ''}`;
  s.innerHTML = `<header><h2><button type="button" class="head">Step</button></h2></header><div class="body">${inner}</div>`;
  s.querySelector('button.head')!.addEventListener('click', () => s.classList.toggle('closed'));
  document.body.appendChild(s);
  return s;
}

describe('focusAction: the "go to" shortcuts\' target', () => {
  it('waits for a panel that renders later, opens its tab and collapsed section, and focuses the action', async () => {
    const tab = document.createElement('button');
    tab.dataset.testid = 'tab-order';
    tab.setAttribute('aria-selected', 'false');
    tab.addEventListener('click', () => tab.setAttribute('aria-selected', 'true'));
    document.body.appendChild(tab);
    const pending = focusAction('estimate-button', { tab: 'tab-order' });
    // The panel's code arrives after the shortcut.
    const s = section(true, '<button type="button" data-testid="estimate-button">Estimate</button>');
    expect(await pending).toEqual({ ok: true });
    expect(tab.getAttribute('aria-selected')).toBe('true');
    expect(s.classList.contains('closed')).toBe(false);
    expect((document.activeElement as HTMLElement).dataset.testid).toBe('estimate-button');
  });

  it('waits for a control the panel enables a moment later; one that stays disabled leaves focus on its section heading', async () => {
    const s = section(false, '<button type="button" data-testid="check" disabled>Check</button>');
    const button = s.querySelector<HTMLButtonElement>('[data-testid=check]')!;
    const pending = focusAction('check', { enableMs: 1_000 });
    button.disabled = false;
    expect(await pending).toEqual({ ok: true });
    expect(document.activeElement).toBe(button);

    button.disabled = true;
    const r = await focusAction('check', { enableMs: 20 });
    expect(r).toMatchObject({ ok: false, reason: 'disabled', element: button });
    expect(document.activeElement).toBe(s.querySelector('button.head'));
  });

  it('says when the control never appears', async () => {
    expect(await whenElement('[data-testid="nowhere"]', 20)).toBeNull();
    expect(await focusAction('nowhere', { waitMs: 20 })).toMatchObject({ ok: false, reason: 'missing' });
  });
});
