import { contribute } from '../platform/contributions';
import account from '../features/account/contribution';
import analysis from '../features/analysis/contribution';
import billing from '../features/billing/contribution';
import brief from '../features/brief/contribution';
import imagery from '../features/imagery/contribution';
import library from '../features/library/contribution';
import notifications from '../features/notifications/contribution';
import products from '../features/products/contribution';
import settings from '../features/settings/contribution';
import tasking from '../features/tasking/contribution';
import team from '../features/team/contribution';
import timelapse from '../features/timelapse/contribution';
import watches from '../features/watches/contribution';
import fields from '../features/fields/contribution';

/**
 * The features of the window, in the rail's order: the one place that imports every feature's
 * contribution (platform/contributions.ts). A new feature adds its import and its entry here.
 */
export const FEATURES = [imagery, tasking, library, analysis, products, billing, account, settings, watches, fields, notifications, team, brief, timelapse];

for (const feature of FEATURES) contribute(feature);
