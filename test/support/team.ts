import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PolicyState } from '../../main/policy';
import { TeamCatalog } from '../../main/team/catalog';
import { startPostgres, type TestCluster } from './postgres';

/** A team library as IT sets it up: a migrated catalog on a throwaway cluster, a share folder, and the policy naming both. */
export interface TestTeam {
  cluster: TestCluster;
  share: string;
  policy: PolicyState;
  /** The catalog as its admin sees it (for counting rows). */
  admin(): TeamCatalog;
  close(): Promise<void>;
}

/** Starts a team library; `analysts` are extra login roles in the analysts' group (password `<role>-password`). */
export async function startTeam(analysts: string[] = []): Promise<TestTeam> {
  const cluster = await startPostgres();
  if (analysts.length) await cluster.sql(analysts.map((r) => `CREATE ROLE ${r} LOGIN PASSWORD '${r}-password' IN ROLE swath_analyst`));
  const admin = () => new TeamCatalog(cluster.url(cluster.admin.role), { password: cluster.admin.password });
  const a = admin();
  await a.migrate();
  await a.close();
  const share = mkdtempSync(path.join(os.tmpdir(), 'swath-team-share-'));
  const policy: PolicyState = {
    status: 'applied', file: '/etc/swath/policy.json', problems: [],
    policy: { teamCatalogUrl: `postgresql://${cluster.host}:${cluster.port}/${cluster.database}`, teamSharePath: share },
  };
  return {
    cluster, share, policy, admin,
    async close() {
      await cluster.close();
      rmSync(share, { recursive: true, force: true });
    },
  };
}
