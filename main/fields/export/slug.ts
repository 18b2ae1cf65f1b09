/** A file name part from free text (a set's name): letters, digits, dashes; never empty, never a path. */
export function slug(text: string, fallback: string): string {
  return text.normalize('NFKD').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || fallback;
}
