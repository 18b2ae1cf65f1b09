import path from 'node:path';
import { z } from 'zod';
import { checkBaseUrl, isLoopbackHost, nameReasons } from '../profiles/validation';

/**
 * The admin policy: a read-only JSON file IT drops on the machine. Every key is
 * optional; a missing key leaves the user's own setting in place. Objects are
 * strict, so a misspelt key is an error (reported), never silently ignored.
 * docs/it-guide.md, "Policy file", documents every key (test/build/docs-map.test.ts checks it).
 */

/** Update channels; "stable" reads latest*.yml from the feed, "beta" reads beta*.yml. */
export const updateChannels = ['stable', 'beta'] as const;

/** One of {@link updateChannels}. */
export type UpdateChannel = (typeof updateChannels)[number];

/** What the online basemap layer may show: OpenStreetMap (the default), nothing remote, or one internal XYZ server. */
export const onlineBasemaps = ['osm', 'none', 'xyz'] as const;

const policyProfileSchema = z
  .strictObject({
    name: z.string(),
    baseUrl: z.string(),
  })
  .superRefine((profile, ctx) => {
    for (const reason of nameReasons(profile.name)) ctx.addIssue({ code: 'custom', path: ['name'], message: reason });
    const url = checkBaseUrl(profile.baseUrl);
    if (!url.ok) for (const reason of url.reasons) ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: reason });
  })
  .transform((profile) => {
    const url = checkBaseUrl(profile.baseUrl);
    return { name: profile.name.trim(), baseUrl: url.ok ? url.url : profile.baseUrl };
  });

/** An https URL template of an XYZ tile server, with {z}, {x} and {y}. */
const xyzTemplateSchema = z.string().superRefine((template, ctx) => {
  for (const part of ['{z}', '{x}', '{y}']) {
    if (!template.includes(part)) ctx.addIssue({ code: 'custom', message: `The tile URL must contain ${part}.` });
  }
  let url: URL | null = null;
  try {
    url = new URL(template.replaceAll('{', '').replaceAll('}', ''));
  } catch {
    ctx.addIssue({ code: 'custom', message: 'The tile URL must be an absolute https:// URL template, such as https://tiles.example.org/{z}/{x}/{y}.png.' });
  }
  if (url && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'The tile URL must use https://.' });
  if (url && (url.username || url.password)) ctx.addIssue({ code: 'custom', message: 'The tile URL must not contain a user name or password.' });
});

/**
 * Why a URL Swath takes trusted files from must not be used, or null when it may: https, and plain
 * http only on loopback when `loopbackHttp` (a test server on this machine). Worded for the update
 * feed; other callers name their URL in its place.
 */
function trustedUrlProblem(url: string, loopbackHttp: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `the update URL ${url} is not an absolute URL.`;
  }
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) {
    return loopbackHttp ? null : `the update URL ${url} uses plain http: any program on this machine could listen on that port and serve another installer and the checksum it is verified against, so the feed must use https://, even on this machine.`;
  }
  if (parsed.protocol === 'http:') {
    return `the update URL ${url} uses plain http: anyone on the network path could replace the installer and the checksum it is verified against, so the feed must use https://${loopbackHttp ? ' (http is allowed only for localhost / 127.0.0.1)' : ''}.`;
  }
  return `the update URL ${url} must use https://.`;
}

/**
 * Why an update feed URL must not be used, or null when it may: the feed serves the installers and
 * the sha512 they are checked against, so it must be https, on loopback too.
 */
export function updateFeedProblem(url: string): string | null {
  return trustedUrlProblem(url, false);
}

/** The update feed given at build time (SWATH_UPDATE_URL), trimmed; throws, failing the build, unless it is https. */
export function buildUpdateFeed(value: string | undefined): string {
  const url = value?.trim() ?? '';
  const problem = url ? updateFeedProblem(url) : null;
  if (problem) throw new Error(`SWATH_UPDATE_URL: ${problem}`);
  return url;
}

/** Why a team catalog URL cannot be used: empty when it can. */
export function teamCatalogUrlProblems(value: string): string[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return ['teamCatalogUrl must be a URL such as postgres://catalog.example.org:5432/swath?sslmode=verify-full.'];
  }
  const problems: string[] = [];
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') problems.push('teamCatalogUrl must start with postgres:// or postgresql://.');
  if (url.username || url.password) problems.push('teamCatalogUrl must not contain a user name or password: each analyst enters their catalog role and password in Settings, kept in the OS keychain.');
  if (!url.hostname) problems.push('teamCatalogUrl must name the server.');
  if (!url.pathname || url.pathname === '/') problems.push('teamCatalogUrl must name the database (…/swath).');
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode !== null && !['disable', 'require', 'verify-ca', 'verify-full'].includes(sslmode)) problems.push(`teamCatalogUrl: sslmode "${sslmode}" is not one of disable, require, verify-ca, verify-full.`);
  if (sslmode !== 'verify-full' && sslmode !== 'verify-ca' && !isLoopbackHost(url.hostname)) {
    problems.push('teamCatalogUrl must use ?sslmode=verify-full (TLS with the server certificate checked) for a server other than this machine.');
  }
  return problems;
}

/** Why the team catalog's TLS keys do not go together: `verify-ca` checks no host name, so it needs the organisation's own CA. */
export function teamCatalogTlsProblem(policy: { teamCatalogUrl?: string; teamCatalogCa?: string }): string | null {
  if (!policy.teamCatalogUrl || policy.teamCatalogCa) return null;
  let sslmode: string | null;
  try {
    sslmode = new URL(policy.teamCatalogUrl).searchParams.get('sslmode');
  } catch {
    return null;
  }
  return sslmode === 'verify-ca'
    ? 'teamCatalogUrl with sslmode=verify-ca needs teamCatalogCa: verify-ca checks no host name, so any publicly trusted certificate of any host would pass. Name your own CA in teamCatalogCa, or use sslmode=verify-full.'
    : null;
}

/** The policy file's schema. */
export const policySchema = z
  .strictObject({
    /** Profiles every user gets (name and base URL, never keys); they cannot be renamed, re-pointed or deleted. */
    profiles: z.array(policyProfileSchema).max(20, 'At most 20 profiles.').optional(),
    /** Hides the built-in demo service (the offline simulator profile). */
    hideDemoService: z.boolean().optional(),
    /** Which online basemap the map may load; the CSP allows that one host and no other. */
    basemap: z
      .strictObject({
        online: z.enum(onlineBasemaps),
        xyzUrl: xyzTemplateSchema.optional(),
        attribution: z.string().max(200).optional(),
      })
      .superRefine((basemap, ctx) => {
        if (basemap.online === 'xyz' && !basemap.xyzUrl) ctx.addIssue({ code: 'custom', path: ['xyzUrl'], message: 'xyzUrl is required when online is "xyz".' });
        if (basemap.online !== 'xyz' && basemap.xyzUrl) ctx.addIssue({ code: 'custom', path: ['xyzUrl'], message: 'xyzUrl is only allowed when online is "xyz".' });
      })
      .optional(),
    /** The download folder, fixed (an absolute path; environment variables are not expanded). */
    downloadDir: z
      .string()
      .refine((dir) => path.isAbsolute(dir) || path.win32.isAbsolute(dir), 'downloadDir must be an absolute path.')
      .optional(),
    /** Where updates come from and which channel; a URL here wins over the one set at build time. */
    updates: z
      .strictObject({
        // An http URL parses, so the rest of the policy still applies; loadPolicy reports it and updates stay off.
        url: z
          .url({ protocol: /^https?$/, error: 'updates.url must be an https URL.' })
          .optional(),
        channel: z.enum(updateChannels).optional(),
        /** Turns automatic updates off even when a feed URL is known. */
        enabled: z.boolean().optional(),
      })
      .optional(),
    /** A monthly spending ceiling main's spend guard never passes (main/spend); only EUR, the service's currency, can be enforced. */
    monthlyBudget: z
      .strictObject({
        amount: z.number().positive('monthlyBudget.amount must be greater than 0.'),
        currency: z.string().regex(/^[A-Z]{3}$/, 'monthlyBudget.currency must be a 3-letter ISO code such as EUR.'),
      })
      .optional(),
    /**
     * With no monthly budget (and no ceiling), a known cost above this many EUR still needs the
     * analyst's confirmation in main's own dialog (main/spend: 50 when absent; 0: every spend that costs anything asks).
     */
    confirmSpendAboveEur: z.number().nonnegative('confirmSpendAboveEur must be 0 or more (EUR).').optional(),
    /**
     * The team library's catalog: a postgres:// (or postgresql://) URL of the organisation's
     * PostgreSQL/PostGIS server and database, without a user name or password (each analyst's
     * role and password live in their OS keychain). `?sslmode=verify-full` checks the server's
     * certificate; `teamCatalogCa` names the CA file (PEM) when it is a private one.
     */
    teamCatalogUrl: z.string().superRefine((value, ctx) => {
      for (const reason of teamCatalogUrlProblems(value)) ctx.addIssue({ code: 'custom', message: reason });
    }).optional(),
    /** The CA certificate (PEM file, absolute path) the team catalog's certificate is checked against. */
    teamCatalogCa: z.string().refine((file) => path.isAbsolute(file) || path.win32.isAbsolute(file), 'teamCatalogCa must be an absolute path.').optional(),
    /** The shared raster store: a folder on a network share every analyst's machine mounts (absolute path). */
    teamSharePath: z
      .string()
      .refine((dir) => path.isAbsolute(dir) || path.win32.isAbsolute(dir), 'teamSharePath must be an absolute path.')
      .optional(),
    /** An https base URL serving the share's folder (Range requests), so a teammate previews a raster without copying it. */
    teamReadUrl: z.string().superRefine((value, ctx) => {
      const problem = trustedUrlProblem(value, true);
      if (problem) ctx.addIssue({ code: 'custom', message: problem.replace('the update URL', 'the team read URL').replace('the installer and the checksum it is verified against', 'the rasters teammates preview') });
    }).optional(),
    /** Desktop notifications; false turns them off (stored and shown now; notifications come later). */
    notifications: z.boolean().optional(),
  })
  .superRefine((policy, ctx) => {
    const problem = teamCatalogTlsProblem(policy);
    if (problem) ctx.addIssue({ code: 'custom', path: ['teamCatalogUrl'], message: problem });
  });

/** A validated policy. */
export type Policy = z.output<typeof policySchema>;

/** Turns zod issues into lines an administrator can act on ("basemap.xyzUrl: ..."), their paths under `under` (a key of the file). */
export function policyProblems(error: z.ZodError, under: readonly PropertyKey[] = []): string[] {
  return error.issues.map((issue) => {
    const where = [...under, ...issue.path];
    const at = where.length ? where.join('.') : '(top level)';
    return issue.code === 'unrecognized_keys' ? unknownKeys(at, issue.keys) : `${at}: ${issue.message}`;
  });
}

function unknownKeys(where: string, keys: readonly string[]): string {
  // A key in a profile is the one mistake that must be explained, not just refused.
  const hint = keys.some((k) => /key|secret|token|password/i.test(k)) ? ' A policy never carries API keys; users enter their key in Settings.' : '';
  return `${where}: unknown key${keys.length > 1 ? 's' : ''} ${keys.join(', ')}.${hint}`;
}

/** The policy's keys that set the monthly ceiling, and unknown keys that look like one (a misspelling of it). */
const CEILING_KEY = 'monthlyBudget';
const LOOKS_LIKE_CEILING = /budget|ceiling|spend|limit|cap/i;

/** A policy file read key by key (see {@link parsePolicy}). */
export interface ParsedPolicy {
  /** The valid keys. */
  policy: Policy;
  /** One line per bad or unknown key: that key is ignored. */
  problems: string[];
  /** Why the monthly ceiling cannot be read (its key is invalid, or an unknown key may be a misspelling of it); null when it can. */
  ceilingUnreadable: string | null;
}

/**
 * Reads a policy key by key: a valid key applies even when another is wrong (that one is ignored
 * and reported), so one mistake does not drop every rule IT set. A wrong ceiling never means no
 * ceiling: `ceilingUnreadable` says why it cannot be read.
 */
export function parsePolicy(raw: unknown): ParsedPolicy {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    const problem = '(top level): a policy is a JSON object of keys.';
    return { policy: {}, problems: [problem], ceilingUnreadable: problem };
  }
  const file = raw as Record<string, unknown>;
  const shape = policySchema.shape;
  const policy: Record<string, unknown> = {};
  const problems: string[] = [];
  const unknown = Object.keys(file).filter((key) => !Object.hasOwn(shape, key));
  if (unknown.length) problems.push(unknownKeys('(top level)', unknown));
  let ceilingUnreadable: string | null = null;
  for (const [key, schema] of Object.entries(shape) as [keyof typeof shape, z.ZodType][]) {
    if (!Object.hasOwn(file, key)) continue;
    const parsed = schema.safeParse(file[key]);
    if (parsed.success) {
      if (parsed.data !== undefined) policy[key] = parsed.data;
      continue;
    }
    const lines = policyProblems(parsed.error, [key]);
    problems.push(...lines);
    if (key === CEILING_KEY) ceilingUnreadable = lines.join(' ');
  }
  const lookalikes = unknown.filter((key) => LOOKS_LIKE_CEILING.test(key));
  if (!ceilingUnreadable && lookalikes.length && !Object.hasOwn(policy, CEILING_KEY)) {
    ceilingUnreadable = `${lookalikes.join(', ')} is not a policy key, and may be meant as ${CEILING_KEY}.`;
  }
  return { policy: policy as Policy, problems, ceilingUnreadable };
}
