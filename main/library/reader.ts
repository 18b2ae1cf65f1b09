import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { parseBandnames } from '../../common/bandnames.js';
import type { LibraryEntry, LibraryPage, LibraryQuery, LibrarySort } from './entry.js';

/**
 * The library list's queries (`library:query`): a page of rasters, or of time series, with its counts,
 * answered from the indexes of swath.db. The reader only reads, so it runs on any connection: main's
 * (the catalog's own, for tests and exports) or a worker thread's (main/library/query-thread.ts), where
 * a query of 100,000 rasters does not hold main's event loop.
 */

/** A row of the catalog's queries: the rowid, the entry as JSON, and its time series' key. */
export interface Row {
  rid: number;
  entry: string;
  group_key: string | null;
}

/** The entry of a row, with its series' key as stored (the JSON's own is ignored). */
export function rowEntry(r: Row): LibraryEntry {
  const e = JSON.parse(r.entry) as LibraryEntry;
  delete e.series;
  if (r.group_key !== null) e.series = r.group_key;
  return e;
}

const ORDER: Record<LibrarySort, string> = {
  'date-desc': '(date IS NULL), date DESC, created_at DESC',
  'date-asc': '(date IS NULL), date ASC, created_at DESC',
  'added-desc': 'created_at DESC',
  name: 'name_key, rid',
  'size-desc': 'size DESC, rid',
};

/**
 * The index that walks each order as it is (see {@link LibraryReader.query}); size has none that
 * keeps its tie-break, so its matches are always sorted.
 */
const ORDER_INDEX: Partial<Record<LibrarySort, string>> = {
  'date-desc': 'library_date_desc',
  'date-asc': 'library_date_asc',
  'added-desc': 'library_created',
  name: 'library_name',
};

/**
 * From this many text matches on, a page walks the order's index and stops at its last row, instead
 * of sorting every match first (which costs more than the walk once matches are a few percent of
 * the library); below it, the matches are few and sorting them is cheaper than walking the index.
 */
const WALK_FROM_MATCHES = 2000;

const phrase = (column: string, text: string) => `${column} : "${text.replace(/"/g, '""')}"`;
const likeWord = (w: string) => `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The search words as an FTS5 expression (trigram: a word of three or more characters matches as a substring) and LIKE terms for shorter words. */
function searchTerms(text: string): { match: string[]; like: string[] } {
  const match: string[] = [];
  const like: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const parsed = parseBandnames(word);
    if (parsed.ok) for (const b of parsed.bands) match.push(phrase('bands', `|${b.toUpperCase()}|`));
    else if ([...word].length >= 3) match.push(phrase('text', word.toLowerCase()));
    else like.push(likeWord(word.toLowerCase()));
  }
  return { match, like };
}

/** The list's queries on one connection. */
export class LibraryReader {
  private readonly sql;
  /** The counts of the last filter asked (see {@link counted}). */
  private lastCounts: { key: string; version: string; counts: { total: number; groups: number; singles: number } } | null = null;
  /** What `temp.library_hits` holds: the text search it was filled for, its match count, and the {@link version} after filling. */
  private hits: { key: string; version: string; count: number } | null = null;

  constructor(private readonly db: DatabaseSync) {
    // A text search's matches, found once per search (the full-text index is the costly part) and
    // then read by the counts and the page's walk; in this connection's memory only.
    db.exec('CREATE TEMP TABLE IF NOT EXISTS library_hits (rid INTEGER PRIMARY KEY)');
    const p = (q: string) => db.prepare(q);
    this.sql = {
      byRid: p('SELECT l.rid, e.entry, l.group_key FROM library l JOIN library_entry e ON e.rid = l.rid WHERE l.rid = ?'),
      count: p('SELECT COUNT(*) AS n FROM library'),
      membersOf: p(`SELECT group_key, id, date, request_key FROM library INDEXED BY library_group
        WHERE group_key IN (SELECT value FROM json_each(?)) ORDER BY group_key, date, created_at`),
      // Commits of other connections (data_version) and this connection's own changes (total_changes).
      version: p('SELECT (SELECT data_version FROM pragma_data_version) AS d, total_changes() AS c'),
      hitsClear: p('DELETE FROM temp.library_hits'),
    };
  }

  /**
   * Changes when the library may have changed: a commit by this connection or by any other.
   * `unchanging`: rows of this connection's total changes that changed no content (the text index's
   * merge steps), left out.
   */
  version(unchanging = 0): string {
    const v = this.sql.version.get() as { d: number; c: number };
    return `${v.d}:${v.c - unchanging}`;
  }

  /** One page of the list, answered from the indexes (see {@link LibraryQuery}). */
  query(q: LibraryQuery): LibraryPage {
    const where: string[] = [];
    const params: SQLInputValue[] = [];
    if (q.source && q.source !== 'all') {
      where.push('source = ?');
      params.push(q.source);
    }
    if (q.dateFrom) {
      where.push('date >= ?');
      params.push(q.dateFrom);
    }
    if (q.dateTo) {
      where.push('date <= ?');
      params.push(q.dateTo);
    }
    if (q.ids) {
      where.push(`id IN (${q.ids.map(() => '?').join(', ') || 'NULL'})`);
      params.push(...q.ids);
    }
    if (q.bbox) {
      where.push('rid IN (SELECT rid FROM library_box WHERE west <= ? AND east >= ? AND south <= ? AND north >= ?)');
      params.push(q.bbox[2], q.bbox[0], q.bbox[3], q.bbox[1]);
    }
    const terms = searchTerms(q.text ?? '');
    const matches = terms.match.length || terms.like.length ? this.searchHits(terms) : null;
    if (matches !== null) where.push('rid IN (SELECT rid FROM temp.library_hits)');
    const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const sort = q.sort ?? 'date-desc';
    const order = ORDER[sort];
    const offset = Math.max(0, q.offset ?? 0);
    const all = (this.sql.count.get() as { n: number }).n;
    // Many text matches: walk the order's index (it stops at the page's last row) rather than sort them all.
    const orderIndex = ORDER_INDEX[sort];
    const walk = matches !== null && orderIndex !== undefined && !q.ids && !q.bbox && matches.count >= WALK_FROM_MATCHES;
    const from = walk ? `library INDEXED BY ${orderIndex}` : 'library';
    // Only a text search: its counts read the matches' groups from the narrow index (rid, group_key).
    const countFrom = matches !== null && where.length === 1 ? 'library INDEXED BY library_rid_group' : 'library';
    const countKey = JSON.stringify([countFrom, filter, params, matches?.key ?? null]);
    if (!q.series) {
      const total = where.length ? this.counted(countKey, countFrom, filter, params).total : all;
      const rids = this.db.prepare(`SELECT rid FROM ${from} ${filter} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...params, q.limit, offset) as { rid: number }[];
      return { total, rows: total, all, entries: rids.map((r) => rowEntry(this.sql.byRid.get(r.rid) as unknown as Row)), series: [] };
    }
    // A series is one row, at its first raster in the order: walk the order (rid and group only) to the page.
    const counts = this.counted(countKey, countFrom, filter, params);
    const heads: number[] = [];
    const seen = new Set<string>();
    let index = 0;
    for (const r of this.db.prepare(`SELECT rid, group_key FROM ${from} ${filter} ORDER BY ${order}`).iterate(...params) as IterableIterator<{ rid: number; group_key: string | null }>) {
      if (r.group_key !== null) {
        if (seen.has(r.group_key)) continue;
        seen.add(r.group_key);
      }
      if (index++ >= offset) heads.push(r.rid);
      if (heads.length >= q.limit) break;
    }
    const entries = heads.map((rid) => rowEntry(this.sql.byRid.get(rid) as unknown as Row));
    // The page's series with their dates, read in one walk of the group index; a raster of an
    // identical request as an earlier one of its date (bought twice) is that date already.
    const keys = entries.flatMap((e) => (e.series ? [e.series] : []));
    const members = new Map<string, { id: string; date: string | null }[]>(keys.map((k) => [k, []]));
    if (keys.length) {
      const identical = new Set<string>();
      for (const m of this.sql.membersOf.iterate(JSON.stringify(keys)) as IterableIterator<{ group_key: string; id: string; date: string | null; request_key: string | null }>) {
        if (m.request_key) {
          const key = `${m.group_key}\n${m.request_key}`;
          if (identical.has(key)) continue;
          identical.add(key);
        }
        members.get(m.group_key)!.push({ id: m.id, date: m.date });
      }
    }
    const series = keys.map((key) => ({ key, entries: members.get(key)! }));
    return { total: counts.total, rows: counts.singles + counts.groups, all, entries, series };
  }

  /**
   * Fills `temp.library_hits` with the rasters a text search matches, unless it holds them already
   * (the same search, nothing changed since: the next pages of a list). Its key, and how many match.
   */
  private searchHits(terms: { match: string[]; like: string[] }): { key: string; count: number } {
    const inner = [...(terms.match.length ? ['library_text MATCH ?'] : []), ...terms.like.map(() => "text LIKE ? ESCAPE '\\'")];
    const params = [...(terms.match.length ? [terms.match.join(' AND ')] : []), ...terms.like];
    const key = JSON.stringify(params);
    const version = this.version();
    if (this.hits?.key === key && this.hits.version === version) return this.hits;
    this.sql.hitsClear.run();
    const count = Number(this.db.prepare(`INSERT INTO temp.library_hits (rid) SELECT rowid FROM library_text WHERE ${inner.join(' AND ')}`).run(...params).changes);
    // Filling the table counts as changes of this connection: the version is taken after it.
    this.hits = { key, count, version: this.version() };
    return this.hits;
  }

  /**
   * The counts of one filter: rasters, series and single rasters. The next pages of a list ask for the
   * same filter again, so the last answer is kept until the database changes (see {@link version}).
   */
  private counted(key: string, from: string, filter: string, params: SQLInputValue[]): { total: number; groups: number; singles: number } {
    const version = this.version();
    if (this.lastCounts?.key === key && this.lastCounts.version === version) return this.lastCounts.counts;
    const counts = this.db.prepare(`SELECT COUNT(*) AS total, COUNT(DISTINCT group_key) AS groups, COUNT(*) - COUNT(group_key) AS singles FROM ${from} ${filter}`)
      .get(...params) as { total: number; groups: number; singles: number };
    this.lastCounts = { key, version, counts };
    return counts;
  }
}
