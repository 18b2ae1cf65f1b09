/**
 * The team library's shared vocabulary: what the team catalog (PostgreSQL/PostGIS) holds for one
 * raster, how main asks whether the team already owns what an analyst is about to buy, and the
 * purchase claims that keep two analysts from buying the same thing at the same moment.
 *
 * The catalog (`catalog.ts`), the shared raster store (`share.ts`), the durable registration queue
 * (`outbox.ts`) and the ownership rules (`match.ts`) all speak these types; the composition root
 * wires them to the spend path, the watches and the channels.
 */
import type { OwnershipQuery } from '../library/request-identity.js';

/** "Does the team already own this?": the purchase about to be made, in canonical terms (shared with the library). */
export type { OwnershipQuery };

/** The operation that produced a raster (the same names as the download queue's kinds). */
export type TeamRasterKind = 'composite' | 'tile' | 'minitile';

/** A lon/lat (EPSG:4326) footprint as GeoJSON. */
export interface TeamFootprint {
  type: 'Polygon' | 'MultiPolygon';
  coordinates: number[][][] | number[][][][];
}

/** What an analyst's app sends to register a raster it copied into the shared store. */
export interface TeamRasterInput {
  /** Lower-case hex sha256 of the file: with the storage path, what makes a registration idempotent. */
  sha256: string;
  size: number;
  kind: TeamRasterKind | null;
  /** Image date, YYYY-MM-DD. */
  date: string | null;
  model: string | null;
  constellations: string[];
  bands: string[];
  epsg: number | null;
  /** Metres per pixel. */
  resolution: number | null;
  /** GDAL data type name, e.g. "UInt16". */
  dataType: string | null;
  footprint: TeamFootprint | null;
  /** Tiles and mini-tiles: the service's GUID of the tile (null for composites). */
  tileGuid: string | null;
  /** Path inside the shared store, relative, with forward slashes (never absolute, never `..`). */
  storagePath: string;
  /** Who bought it: the analyst's display name (never the API key). */
  acquiredBy: string;
  /** ISO 8601 UTC. */
  acquiredAt: string;
  /** What it cost in EUR as the service billed it; null when unknown. */
  costEur: number | null;
  /** The process request that produced it, without any secret. */
  request: Record<string, unknown> | null;
  /** Its STAC item (bounded in size). */
  stac: Record<string, unknown> | null;
}

/** A raster as the catalog holds it. */
export interface TeamRaster extends TeamRasterInput {
  /** The catalog's id of the row. */
  id: string;
  /** ISO 8601 UTC: when it was registered. */
  registeredAt: string;
}

/** A raster the team owns that answers a query. */
export interface OwnedMatch {
  raster: TeamRaster;
  /** True when it is what was asked for in every respect; false when it differs (see `differences`). */
  exact: boolean;
  /** What differs, in words an analyst reads ("EPSG:32632 instead of EPSG:32633"); empty when exact. */
  differences: string[];
}

/** A purchase in progress, claimed in the catalog so a teammate's identical purchase waits for it. */
export interface PurchaseClaim {
  /** The canonical key of the purchase (see `purchaseKey` in match.ts). */
  key: string;
  /** Display name of the analyst buying it. */
  holder: string;
  /** ISO 8601 UTC: when the claim lapses if its holder never finishes. */
  expiresAt: string;
  /** True when this app holds it (the claim was granted); false when a teammate does. */
  mine: boolean;
}

/** Whether the team catalog can be reached (for the status line). */
export type TeamStatus =
  | { state: 'off' }
  | { state: 'online'; checkedAt: string }
  | { state: 'unreachable'; since: string; reason: string };
