import type { Contribution } from '../../platform/contributions';
import TeamStatus from './views/TeamStatus.vue';

/** The team library: its line in the status bar. */
export default {
  feature: 'team',
  statusItems: [{ id: 'team', component: TeamStatus }],
} satisfies Contribution;
