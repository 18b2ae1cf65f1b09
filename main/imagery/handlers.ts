import { canonicalBody, type CompositeAvailableRequest, type GeographyCompositeRequest, type SearchAvailableRequest, type ServiceClient } from '../api';
import { downloadCost } from '../../common/money.js';
import { identicalInLibrary, type LibraryLookup } from '../downloads';
import type { HandlerTable } from '../ipc';
import { automaticOrderCost, type Estimator, type SpendGuard } from '../spend';

/**
 * The imagery:* channels: search, availability and estimates over the active profile's service. An
 * estimate is main's own, kept briefly, and carries the spend guard's verdict on it.
 */

/** The channels of imagery. */
export type ImageryChannel = 'imagery:search' | 'imagery:available' | 'imagery:estimate' | 'imagery:legacy-composite';

/** What the imagery channels need. */
export interface ImageryHandlerDeps {
  /** The active profile's client. */
  client: (signal: AbortSignal) => Promise<ServiceClient>;
  /** The active profile's id (estimates are kept per profile). */
  profileId: () => Promise<string>;
  /** The one spend guard, and main's own estimates it decides on. */
  guard: SpendGuard;
  estimator: Estimator;
  /** The analyst's library: an estimate names the identical file already in it. */
  library?: LibraryLookup;
}

/** Imagery's slice of the channel table. */
export function imageryHandlers(deps: ImageryHandlerDeps): Pick<HandlerTable, ImageryChannel> {
  const { client, guard, estimator, profileId } = deps;
  return {
    'imagery:search': async ({ request }, { signal }) => ({ data: await (await client(signal)).searchAvailable(request as unknown as SearchAvailableRequest, signal) }),
    'imagery:available': async ({ request }, { signal }) => ({ data: await (await client(signal)).compositeAvailable(request as unknown as CompositeAvailableRequest, signal) }),
    'imagery:estimate': async ({ request }, { signal }) => {
      // Kept briefly as main's own estimate of this exact request: a download of it right after is decided on this answer.
      const body = canonicalBody('estimate', request);
      const data = await estimator.composite(await client(signal), await profileId(), body, signal, true);
      const kind = body.TileGuid != null ? 'tile' : body.MiniTileGuid != null ? 'minitile' : 'composite';
      // The download's own cost: with AutomaticOrderCreation on, an order no estimate prices may come with it.
      const cost = (kind === 'composite' ? automaticOrderCost(body) : null) ?? downloadCost(data);
      return { data, verdict: await guard.verdict(cost, signal), inLibrary: await identicalInLibrary(deps.library, kind, body) };
    },
    'imagery:legacy-composite': async ({ request }, { signal }) => ({
      // Deprecated by the service; reachable on purpose, under "legacy", with a notice in the UI.
      data: await (await client(signal)).geographyComposite(request as unknown as GeographyCompositeRequest, signal),
    }),
  };
}
