import type { HandlerTable } from '../ipc';
import type { PolicyView } from './apply';

/** The policy:get channel: the admin policy as the renderer sees it (what is fixed, and the file's problems). */
export function policyHandlers(view: PolicyView): Pick<HandlerTable, 'policy:get'> {
  return { 'policy:get': () => view };
}
