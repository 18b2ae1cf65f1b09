/** The team library feature's public surface: what other features may use of it. */
export { useTeamStore, type TeamCheck } from './stores/team';
