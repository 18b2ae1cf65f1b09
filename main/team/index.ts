export { TeamLibrary, TEAM_KEYCHAIN_ACCOUNT, CLAIM_TTL_MS, type TeamCatalogPort, type TeamSharePort, type TeamOutboxPort, type TeamRules, type TeamPurchase, type TeamLibraryDeps, type TeamStatusView, type TeamCheckView } from './service';
export { teamHandlers, type TeamChannel } from './handlers';
export type * from './types';
export { openTeamLibrary, type OpenTeamOptions } from './open';
