import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's browser bundle, read once. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2.0 and 2.1 level A and AA rules: what Swath promises (WCAG 2.1 AA). */
export const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * Rules axe files under best practice, not under a WCAG criterion, that Swath holds to as well:
 * landmarks around all content, headings in order, ARIA roles allowed on their element. Any impact fails.
 */
export const EXTRA_RULES = ['region', 'heading-order', 'aria-allowed-role', 'landmark-unique', 'landmark-one-main', 'page-has-heading-one'];

/** One violated rule on one page state. */
export interface AxeFinding {
  /** Where the page was (e.g. "light / imagery / fresh"). */
  state: string;
  rule: string;
  impact: string;
  help: string;
  /** The CSS targets of the violating nodes, with axe's summary of the first ones. */
  nodes: { target: string; summary: string }[];
}

/**
 * Runs axe-core on the page (injected once per document) and returns the critical and serious
 * violations of the {@link WCAG_AA_TAGS} rules, and every violation of {@link EXTRA_RULES}.
 */
export async function axeSerious(page: Page, state: string): Promise<AxeFinding[]> {
  // Evaluated over the DevTools protocol: the page's Content-Security-Policy (script-src 'self') refuses inline script tags.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (tags) => {
    type AxeResult = { id: string; impact: string | null; help: string; tags: string[]; nodes: { target: unknown[]; failureSummary?: string }[] };
    const axe = (window as unknown as { axe: { run(ctx: Document, o: unknown): Promise<{ violations: AxeResult[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: [...tags, 'best-practice'] }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      wcag: v.tags.some((t) => tags.includes(t)),
      rule: v.id,
      impact: v.impact ?? 'unknown',
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.map(String).join(' > '), summary: (n.failureSummary ?? '').split('\n').slice(0, 3).join(' ') })),
    }));
  }, WCAG_AA_TAGS);
  return violations
    .filter((v) => (v.wcag && (v.impact === 'critical' || v.impact === 'serious')) || EXTRA_RULES.includes(v.rule))
    .map(({ wcag: _, ...v }) => ({ state, ...v }));
}

/** A readable list of findings: state, rule, impact and each node's target, for a failing assertion. */
export function formatFindings(findings: AxeFinding[]): string {
  return findings
    .map((f) => `${f.state}: ${f.rule} (${f.impact}, ${f.nodes.length} node${f.nodes.length === 1 ? '' : 's'}) ${f.help}\n${f.nodes.map((n) => `    ${n.target}  ${n.summary}`).join('\n')}`)
    .join('\n');
}
