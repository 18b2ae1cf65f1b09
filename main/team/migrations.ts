/**
 * The team catalog's schema, as versioned migrations.
 *
 * Why not a migration tool (node-pg-migrate and the like): they read their migrations from a folder of loose files at
 * run time (a glob over `migrations/`), while these must also run from the bundled Electron main on the app's first
 * connect with an admin role, where there is no such folder. The steps are few and plain SQL, so they live here as
 * strings, bundled with the code: `TeamCatalog.migrate()` applies the missing ones in one transaction under
 * `pg_advisory_xact_lock` (two apps or an app and IT's `npm run team:migrate` at once: one waits, then finds nothing
 * left to do) and records each in `swath.swath_schema`. A step is never edited once released; a change is a new step.
 *
 * The layer QGIS opens: `swath.rasters`, a plain PostGIS table with a `bigint` primary key (`id`) and one
 * `geometry(MultiPolygon, 4326)` column (`footprint`), GiST-indexed, listed in `geometry_columns`.
 *
 * Rights: the tables belong to the admin role that runs the migrations; each step grants the analysts' group role
 * (`swath_analyst`, created by IT before the first migration: docs/it-guide.md) what analysts may do: read and add rasters,
 * manage purchase claims, read the schema version. Never UPDATE/DELETE of rasters, never DDL. Teammates are not
 * trusted with one another's rows (step 2, row-level security): a raster an analyst adds names their own login role
 * (`session_user`, which `SET ROLE` does not change) as its buyer, a claim names them as its holder, a live claim is
 * changed or ended only by its holder (a lapsed one is nobody's: anyone may clear it), and the server caps a claim at one day.
 */

export interface Migration {
  version: number;
  description: string;
  sql: string;
}

/** The analysts' group role the migrations grant to (scripts/team-setup.ts creates it with the same name). */
export const ANALYST_GROUP_ROLE = 'swath_analyst';

/** Arbitrary constant key of the advisory lock that serialises migrations on one database. */
export const MIGRATION_LOCK_KEY = 7_345_021_026;

/** Run before reading the version (inside the lock): the schema and the version table exist afterwards. */
export const BOOTSTRAP_SQL = `
CREATE SCHEMA IF NOT EXISTS swath;
CREATE TABLE IF NOT EXISTS swath.swath_schema (
  version integer PRIMARY KEY,
  description text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  applied_by text NOT NULL DEFAULT current_user
);
COMMENT ON TABLE swath.swath_schema IS 'Swath team catalog: the migrations applied (npm run team:migrate).';
`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "rasters (PostGIS layer), purchase claims, analysts' rights",
    sql: `
CREATE TABLE swath.rasters (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  size bigint NOT NULL CHECK (size >= 0),
  kind text CHECK (kind IN ('composite', 'tile', 'minitile')),
  image_date date,
  model text,
  constellations text[] NOT NULL DEFAULT '{}',
  bands text[] NOT NULL DEFAULT '{}',
  epsg integer,
  resolution double precision CHECK (resolution > 0),
  data_type text,
  footprint geometry(MultiPolygon, 4326),
  tile_guid text,
  storage_path text NOT NULL,
  acquired_by text NOT NULL,
  acquired_at timestamptz NOT NULL,
  cost_eur numeric(14, 2),
  request json,
  stac json,
  registered_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT rasters_file UNIQUE (sha256, storage_path)
);
CREATE INDEX rasters_footprint ON swath.rasters USING gist (footprint);
CREATE INDEX rasters_date_model ON swath.rasters (image_date, model);
CREATE INDEX rasters_tile ON swath.rasters (tile_guid, image_date) WHERE tile_guid IS NOT NULL;
CREATE INDEX rasters_bands ON swath.rasters USING gin (bands);
COMMENT ON TABLE swath.rasters IS 'Swath team library: one row per raster in the shared store (footprint in EPSG:4326).';
COMMENT ON COLUMN swath.rasters.storage_path IS 'Path inside the shared store: relative, forward slashes.';
COMMENT ON COLUMN swath.rasters.resolution IS 'Metres per pixel.';
COMMENT ON COLUMN swath.rasters.cost_eur IS 'What it cost in EUR as the service billed it.';

CREATE TABLE swath.purchase_claims (
  key text PRIMARY KEY,
  holder text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
COMMENT ON TABLE swath.purchase_claims IS 'Swath team library: purchases in progress; a claim lapses at expires_at.';

GRANT USAGE ON SCHEMA swath TO ${ANALYST_GROUP_ROLE};
GRANT SELECT ON swath.swath_schema TO ${ANALYST_GROUP_ROLE};
GRANT SELECT, INSERT ON swath.rasters TO ${ANALYST_GROUP_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE ON swath.purchase_claims TO ${ANALYST_GROUP_ROLE};
`,
  },
  {
    version: 2,
    description: 'analysts add rows and claims only in their own name; a claim lasts at most a day',
    sql: `
ALTER TABLE swath.rasters ENABLE ROW LEVEL SECURITY;
CREATE POLICY rasters_read ON swath.rasters FOR SELECT TO ${ANALYST_GROUP_ROLE} USING (true);
CREATE POLICY rasters_add_own ON swath.rasters FOR INSERT TO ${ANALYST_GROUP_ROLE} WITH CHECK (acquired_by = session_user);

ALTER TABLE swath.purchase_claims ENABLE ROW LEVEL SECURITY;
CREATE POLICY claims_read ON swath.purchase_claims FOR SELECT TO ${ANALYST_GROUP_ROLE} USING (true);
CREATE POLICY claims_add_own ON swath.purchase_claims FOR INSERT TO ${ANALYST_GROUP_ROLE} WITH CHECK (holder = session_user);
CREATE POLICY claims_renew_own ON swath.purchase_claims FOR UPDATE TO ${ANALYST_GROUP_ROLE}
  USING (holder = session_user) WITH CHECK (holder = session_user);
CREATE POLICY claims_end_own_or_lapsed ON swath.purchase_claims FOR DELETE TO ${ANALYST_GROUP_ROLE}
  USING (holder = session_user OR expires_at <= now());

CREATE FUNCTION swath.claim_lifetime() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog AS $fn$
BEGIN
  NEW.claimed_at := now();
  IF NEW.expires_at > now() + interval '1 day' THEN
    RAISE EXCEPTION 'a purchase claim lasts at most one day (expires_at % is later)', NEW.expires_at USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER claims_lifetime BEFORE INSERT OR UPDATE ON swath.purchase_claims FOR EACH ROW EXECUTE FUNCTION swath.claim_lifetime();
COMMENT ON COLUMN swath.rasters.acquired_by IS 'The analyst''s catalog role (an analyst adds rows only in their own name).';
COMMENT ON COLUMN swath.purchase_claims.holder IS 'The analyst''s catalog role; only the holder changes or ends a claim before it lapses.';
`,
  },
];

/** The schema version this app knows: the last migration's. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
