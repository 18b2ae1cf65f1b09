/**
 * The clock port: what time it is, for every feature main's composition root builds. `createApp`
 * takes one (`AppOptions.clock`, the system clock by default) and hands it to the features that
 * read the time (profiles, the database, the library, downloads and their file names, the spend
 * ledger, watches and their schedule, exports, the team library, the service's specification,
 * diagnostics), so a test can drive them all through one fixed or advancing clock.
 */

/** The time now. */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
}

/** The system clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** The clock's time as an ISO 8601 timestamp. */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
