/**
 * Band maths typed by the analyst: `(B8-B4)/(B8+B4)`, `ndvi`, `nd(B3, B8)`, `[B8_B4]`, `2.5*(B8-B4)`.
 * Parsed once into a small syntax tree that compiles to an OpenLayers style expression (computed
 * on the GPU, per pixel) and evaluates in JavaScript (histograms, the pixel inspector), so the
 * map and the numbers can never disagree.
 */

/** A parsed band expression. */
export type BandAst =
  | { type: 'num'; value: number }
  | { type: 'band'; index: number; name: string }
  | { type: 'neg'; arg: BandAst }
  | { type: 'bin'; op: '+' | '-' | '*' | '/' | '^'; left: BandAst; right: BandAst };

/** Result of {@link parseBandExpression}. */
export type ParseResult = { ok: true; ast: BandAst; text: string } | { ok: false; message: string; at: number };

/** Shortcuts for common normalized differences, over Sentinel-2 style band names. */
export const INDEX_ALIASES: Record<string, [string, string]> = {
  ndvi: ['B8', 'B4'],
  ndwi: ['B3', 'B8'],
  ndbi: ['B11', 'B8'],
  nbr: ['B8', 'B12'],
};

type Token = { kind: 'num' | 'id' | 'op' | 'idx'; text: string; at: number };

function tokenize(src: string): Token[] | { message: string; at: number } {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) { i++; continue; }
    const num = /^(\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?)/i.exec(src.slice(i));
    if (num) { out.push({ kind: 'num', text: num[0], at: i }); i += num[0].length; continue; }
    const idx = /^\[\s*([A-Za-z0-9]+)\s*_\s*([A-Za-z0-9]+)\s*\]/.exec(src.slice(i));
    if (idx) { out.push({ kind: 'idx', text: `[${idx[1]!.toUpperCase()}_${idx[2]!.toUpperCase()}]`, at: i }); i += idx[0].length; continue; }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (id) { out.push({ kind: 'id', text: id[0], at: i }); i += id[0].length; continue; }
    if ('+-*/^(),'.includes(c)) { out.push({ kind: 'op', text: c, at: i }); i++; continue; }
    return { message: `Unexpected "${c}"`, at: i };
  }
  return out;
}

/** Finds a band by name (case-insensitive), by "b<n>"/"band<n>" position, or returns -1. */
export function resolveBand(name: string, bands: readonly string[]): number {
  const upper = name.toUpperCase();
  const exact = bands.findIndex((b) => b.toUpperCase() === upper || b.toUpperCase().replace(/\s+/g, '') === upper);
  if (exact >= 0) return exact + 1;
  const pos = /^(?:B|BAND)(\d+)$/i.exec(name);
  // "B8" must not silently mean "the 8th band" when band names are known; only when they are generic.
  const generic = bands.every((b) => /^Band \d+$/.test(b));
  if (pos && (generic || /^band/i.test(name))) {
    const n = Number(pos[1]);
    if (n >= 1 && n <= bands.length) return n;
  }
  return -1;
}

/** Parses a band expression against the raster's band names (1-based indices in the tree). */
export function parseBandExpression(text: string, bands: readonly string[]): ParseResult {
  const tokenized = tokenize(text);
  if (!Array.isArray(tokenized)) return { ok: false, ...tokenized };
  const tokens: Token[] = tokenized;
  if (tokens.length === 0) return { ok: false, message: 'Type an expression, e.g. (B8-B4)/(B8+B4) or ndvi', at: 0 };
  let p = 0;
  const peek = (): Token | undefined => tokens[p];
  const fail = (message: string, at = peek()?.at ?? text.length): never => {
    throw Object.assign(new Error(message), { at });
  };
  const band = (name: string, at: number): BandAst => {
    const index = resolveBand(name, bands);
    if (index < 0) fail(`No band "${name}" in this raster (bands: ${bands.join(', ')})`, at);
    return { type: 'band', index, name: bands[index - 1]! };
  };
  const nd = (a: BandAst, b: BandAst): BandAst => ({
    type: 'bin', op: '/', left: { type: 'bin', op: '-', left: a, right: b }, right: { type: 'bin', op: '+', left: a, right: b },
  });

  function expr(): BandAst {
    let left = term();
    while (peek()?.kind === 'op' && (peek()!.text === '+' || peek()!.text === '-')) {
      const op = tokens[p++]!.text as '+' | '-';
      left = { type: 'bin', op, left, right: term() };
    }
    return left;
  }
  function term(): BandAst {
    let left = unary();
    while (peek()?.kind === 'op' && (peek()!.text === '*' || peek()!.text === '/')) {
      const op = tokens[p++]!.text as '*' | '/';
      left = { type: 'bin', op, left, right: unary() };
    }
    return left;
  }
  function unary(): BandAst {
    if (peek()?.kind === 'op' && peek()!.text === '-') { p++; return { type: 'neg', arg: unary() }; }
    if (peek()?.kind === 'op' && peek()!.text === '+') { p++; return unary(); }
    const base = primary();
    if (peek()?.kind === 'op' && peek()!.text === '^') { p++; return { type: 'bin', op: '^', left: base, right: unary() }; }
    return base;
  }
  function primary(): BandAst {
    const t = tokens[p++];
    if (!t) return fail('The expression ends too early');
    if (t.kind === 'num') return { type: 'num', value: Number(t.text) };
    if (t.kind === 'idx') {
      // A delivered index band ([B8_B4]) when the file has it, else computed from its two bands.
      if (resolveBand(t.text, bands) > 0) return band(t.text, t.at);
      const m = /^\[(\w+)_(\w+)\]$/.exec(t.text)!;
      return nd(band(m[1]!, t.at), band(m[2]!, t.at));
    }
    if (t.kind === 'op' && t.text === '(') {
      const inner = expr();
      if (peek()?.text !== ')') fail('Missing ")"');
      p++;
      return inner;
    }
    if (t.kind === 'id') {
      const lower = t.text.toLowerCase();
      if (peek()?.text === '(') {
        if (lower !== 'nd') fail(`Unknown function "${t.text}"; use nd(A, B) for (A-B)/(A+B)`, t.at);
        p++;
        const a = expr();
        if (peek()?.text !== ',') fail('nd takes two arguments: nd(A, B)');
        p++;
        const b = expr();
        if (peek()?.text !== ')') fail('Missing ")"');
        p++;
        return nd(a, b);
      }
      if (resolveBand(t.text, bands) > 0) return band(t.text, t.at);
      const alias = INDEX_ALIASES[lower];
      if (alias) {
        const idx = `[${alias[0]}_${alias[1]}]`;
        if (resolveBand(idx, bands) > 0) return band(idx, t.at);
        return nd(band(alias[0], t.at), band(alias[1], t.at));
      }
      return band(t.text, t.at);
    }
    return fail(`Unexpected "${t.text}"`, t.at);
  }

  try {
    const ast = expr();
    if (p < tokens.length) fail(`Unexpected "${tokens[p]!.text}"`);
    return { ok: true, ast, text };
  } catch (e) {
    return { ok: false, message: (e as Error).message, at: (e as { at?: number }).at ?? 0 };
  }
}

/** The 1-based band indices an expression reads. */
export function bandsUsed(ast: BandAst): number[] {
  const out = new Set<number>();
  const walk = (n: BandAst): void => {
    if (n.type === 'band') out.add(n.index);
    else if (n.type === 'neg') walk(n.arg);
    else if (n.type === 'bin') { walk(n.left); walk(n.right); }
  };
  walk(ast);
  return [...out].sort((a, b) => a - b);
}

/** Whether the expression is a normalized difference (range -1..1, shown with a diverging ramp). */
export function isNormalizedDifference(ast: BandAst): boolean {
  if (ast.type === 'band') return /^\[\w+_\w+\]$/.test(ast.name);
  return ast.type === 'bin' && ast.op === '/' && ast.left.type === 'bin' && ast.left.op === '-' && ast.right.type === 'bin' && ast.right.op === '+';
}

/** Evaluates an expression; `value(i)` is band i's physical value. Division by zero gives NaN (shown as no data). */
export function evaluate(ast: BandAst, value: (index: number) => number): number {
  switch (ast.type) {
    case 'num': return ast.value;
    case 'band': return value(ast.index);
    case 'neg': return -evaluate(ast.arg, value);
    case 'bin': {
      const a = evaluate(ast.left, value);
      const b = evaluate(ast.right, value);
      switch (ast.op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return b === 0 ? NaN : a / b;
        case '^': return a ** b;
      }
    }
  }
}

/** An OpenLayers style expression (arrays as in ol/expr). */
export type OlExpression = number | string | OlExpression[];

/**
 * Compiles to an OpenLayers style expression; `bandValue(i)` gives the expression of band i's
 * physical value (DN times scale plus offset). A zero denominator yields 0, never a GPU NaN.
 */
export function toOlExpression(ast: BandAst, bandValue: (index: number) => OlExpression): OlExpression {
  switch (ast.type) {
    case 'num': return ast.value;
    case 'band': return bandValue(ast.index);
    case 'neg': return ['*', -1, toOlExpression(ast.arg, bandValue)];
    case 'bin': {
      const a = toOlExpression(ast.left, bandValue);
      const b = toOlExpression(ast.right, bandValue);
      if (ast.op === '/') return ['case', ['==', b, 0], 0, ['/', a, b]];
      if (ast.op === '^') return ['^', a, b];
      return [ast.op, a, b];
    }
  }
}

/** A readable form of the expression (band names, minimal parentheses). */
export function formatExpression(ast: BandAst): string {
  const prec = (n: BandAst): number => (n.type === 'bin' ? { '+': 1, '-': 1, '*': 2, '/': 2, '^': 3 }[n.op] : 4);
  const f = (n: BandAst): string => {
    if (n.type === 'num') return String(n.value);
    if (n.type === 'band') return n.name;
    if (n.type === 'neg') return `-${prec(n.arg) < 4 ? `(${f(n.arg)})` : f(n.arg)}`;
    const l = prec(n.left) < prec(n) ? `(${f(n.left)})` : f(n.left);
    const r = prec(n.right) < prec(n) || (prec(n.right) === prec(n) && (n.op === '-' || n.op === '/')) ? `(${f(n.right)})` : f(n.right);
    return `${l}${n.op}${r}`;
  };
  return f(ast);
}
