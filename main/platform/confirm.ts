/**
 * A question main asks the analyst itself, through the host's native dialog
 * (Electron's dialog.showMessageBox). The renderer can neither raise nor answer
 * it: it is how main gets consent for what a compromised renderer must not be
 * able to do alone (delete a file Swath did not download, send a key to a new
 * origin). The browser host has no such dialog, so there the action is refused.
 */
export interface ConfirmRequest {
  title: string;
  message: string;
  detail?: string;
  /** Label of the button that agrees; the other one cancels (and is the default). */
  confirmLabel: string;
}

/** Resolves true only when the analyst chose the confirming button. */
export type HostConfirm = (request: ConfirmRequest) => Promise<boolean>;
