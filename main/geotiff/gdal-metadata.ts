/** The GDAL_METADATA tag (42112): the one parser and writer of its XML in main. */

/** One `<Item>` of a GDAL_METADATA tag; sample is the 0-based band for per-band items. */
export interface GdalMetadataItem {
  name: string;
  value: string;
  sample: number | null;
  role: string | null;
}

function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (_, e: string) => {
    if (e === 'lt') return '<';
    if (e === 'gt') return '>';
    if (e === 'amp') return '&';
    if (e === 'quot') return '"';
    if (e === 'apos') return "'";
    return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
}

/** TIFF ASCII is 7-bit, so anything else is written as a character reference. */
export function escapeXml(s: string): string {
  return s.replace(/[<>&"']|[^\x20-\x7e]/g, (ch) => `&#${ch.codePointAt(0)};`);
}

/** The tag's text without the NUL terminator(s) TIFF ASCII values end with. */
export function stripNuls(text: string): string {
  return text.replace(/\0+$/, '');
}

/** Items of a GDAL_METADATA XML document (trailing NULs of the raw tag are ignored). */
export function parseGdalMetadata(xml: string): GdalMetadataItem[] {
  const items: GdalMetadataItem[] = [];
  const re = /<Item\b([^>]*)>([\s\S]*?)<\/Item>/g;
  const text = stripNuls(xml);
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const attrs = new Map<string, string>();
    for (const a of m[1]!.matchAll(/(\w+)\s*=\s*"([^"]*)"/g)) attrs.set(a[1]!, unescapeXml(a[2]!));
    const name = attrs.get('name');
    if (!name) continue;
    const sample = attrs.get('sample');
    items.push({ name, value: unescapeXml(m[2]!), sample: sample === undefined ? null : Number(sample), role: attrs.get('role') ?? null });
  }
  return items;
}

/** A GDAL_METADATA XML document of items. */
export function gdalMetadataXml(items: readonly GdalMetadataItem[]): string {
  const lines = items.map((it) => {
    const sample = it.sample === null ? '' : ` sample="${it.sample}"`;
    const role = it.role === null ? '' : ` role="${escapeXml(it.role)}"`;
    return `  <Item name="${escapeXml(it.name)}"${sample}${role}>${escapeXml(it.value)}</Item>`;
  });
  return `<GDALMetadata>\n${lines.join('\n')}\n</GDALMetadata>\n`;
}

/** The items of one band (sample) or of the dataset (null), by name; the last of a repeated name wins (as in GDAL). */
export function metadataOf(items: readonly GdalMetadataItem[], sample: number | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const it of items) if (it.sample === sample) out[it.name] = it.value;
  return out;
}

/** {@link metadataOf} for the dataset and every band in one pass over the items (linear, whatever the band count). */
export function metadataBySample(items: readonly GdalMetadataItem[]): { dataset: Record<string, string>; band(sample: number): Record<string, string> } {
  const dataset: Record<string, string> = {};
  const bands = new Map<number, Record<string, string>>();
  for (const it of items) {
    if (it.sample === null) dataset[it.name] = it.value;
    else {
      let rec = bands.get(it.sample);
      if (!rec) bands.set(it.sample, (rec = {}));
      rec[it.name] = it.value;
    }
  }
  return { dataset, band: (sample) => bands.get(sample) ?? {} };
}
