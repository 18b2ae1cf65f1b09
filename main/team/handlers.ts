import type { HandlerTable } from '../ipc';
import type { TeamLibrary } from './service';

/** The team library's channels. */
export type TeamChannel = 'team:status' | 'team:set-credentials' | 'team:check' | 'team:wait' | 'team:use-copy' | 'team:preview';

/** The team library's slice of the handler table. */
export function teamHandlers(team: TeamLibrary): Pick<HandlerTable, TeamChannel> {
  return {
    'team:status': () => team.refresh(),
    'team:set-credentials': ({ credentials }) => team.setCredentials(credentials),
    'team:check': ({ kind, request }, { signal }) => team.check(kind, request, signal),
    'team:wait': ({ kind, request }, { signal }) => team.waitFor(kind, request, signal),
    'team:use-copy': ({ id, mode }, { signal }) => team.useCopy(id, mode, signal),
    'team:preview': ({ id }, { signal }) => team.preview(id, signal),
  };
}
