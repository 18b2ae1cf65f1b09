/**
 * The resolutions the service accepts, metres. A module of its own, without zod, so that a view
 * (the watch form) can list them without pulling the contract's schemas into its chunk.
 */
export const RESOLUTIONS: readonly number[] = [10, 20, 40, 80, 160, 320, 640, 1280];
