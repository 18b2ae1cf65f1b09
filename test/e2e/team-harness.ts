import { readdirSync } from 'node:fs';
import { expect } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator';
import type { Account } from '../../simulator/state';
import type { PolicyState } from '../../main/policy';
import { BERLIN_WKT, importAoi, openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

/** A channel call's context for handlers called directly. */
export const ctx = () => ({ senderUrl: '', signal: new AbortController().signal });

/**
 * Analysts of one organisation for the team e2e tests: each has their own app core (user data,
 * keychain, demo service account with every included download used up, so each one is charged).
 */
export function teamAnalysts<N extends string>() {
  const sims = {} as Record<N, RunningSimulator>;
  const account = (s: RunningSimulator): Account => Object.values(s.state.accounts).find((x) => x.profile.seedDemoOrder)!;
  return {
    sims,
    /** Downloads the service charged `name` for. */
    purchases: (name: N) => account(sims[name]).ledger.filter((e) => e.kind === 'Download').length,
    async open(name: N, policy: PolicyState): Promise<Workspace> {
      const ws = await openWorkspace({
        app: { distribution: { policy } },
        startSimulator: async (o) => {
          const sim = await startSimulator(o);
          sims[name] = sim;
          return sim;
        },
      });
      await waitForMap(ws.page);
      for (const o of account(sims[name]).orders) o.downloadsUsed = 1000;
      return ws;
    },
  };
}

/** Opens the imagery panel, imports the Berlin AOI, searches dates and asks for an estimate. */
export async function estimateBerlin(ws: Workspace): Promise<void> {
  const p = ws.page;
  await openPanel(p, 'imagery');
  await importAoi(p, BERLIN_WKT);
  await p.getByTestId('search-dates').click();
  await p.getByTestId('date-calendar').waitFor({ timeout: 20_000 });
  await p.getByTestId('estimate').click();
}

/** A (signed in to the catalog) buys the Berlin composite; resolves once it is on the share and registered. */
export async function buyBerlinComposite(a: Workspace, share: string): Promise<void> {
  await estimateBerlin(a);
  const p = a.page;
  await p.getByTestId('estimate-result').waitFor({ timeout: 20_000 });
  await p.getByTestId('download').click();
  await p.getByTestId('download-queued').waitFor({ timeout: 20_000 });
  await expect.poll(async () => (await a.app.handlers['downloads:list']({}, ctx())).jobs.map((j) => j.state), { timeout: 30_000 }).toEqual(['done']);
  await expect.poll(() => readdirSync(share, { recursive: true }).filter((f) => String(f).endsWith('.tif')).length, { timeout: 30_000 }).toBe(1);
  // Registered: the catalog answers with the copy (the file is on the share before its registration is sent,
  // and the outbox may still count it after the catalog confirmed).
  const bought = (await a.app.handlers['downloads:list']({}, ctx())).jobs[0]!;
  await expect.poll(async () => (await a.app.handlers['team:check']({ kind: 'composite', request: bought.request }, ctx())).state, { timeout: 30_000 }).toBe('owned');
  await expect.poll(async () => (await a.app.handlers['team:status']({}, ctx())).pending, { timeout: 30_000 }).toBe(0);
}
