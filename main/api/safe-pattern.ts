/**
 * JSON Schema `pattern`s come from the service's specification, a remote
 * document. JavaScript regular expressions backtrack, so a hostile pattern
 * such as `^(a+)+$` against a long value can hold the main process for
 * minutes (ReDoS). Main therefore only applies patterns that cannot blow up:
 * a small static check refuses the shapes that backtrack exponentially or
 * polynomially, and values are matched only up to a bounded length. A refused
 * pattern is simply not checked in Swath (the service still validates).
 */

/** Longest pattern main compiles. */
export const MAX_PATTERN_LENGTH = 512;
/** Longest value a pattern is applied to; longer values are left to the service. */
export const MAX_PATTERN_INPUT = 2048;
/** More unbounded repetitions than this in one pattern can backtrack polynomially (n^3 and worse). */
const MAX_UNBOUNDED = 2;

interface Frame {
  /** A repetition of varying count, or an alternation, somewhere inside this group. */
  ambiguous: boolean;
}

/** Why `pattern` is not safe to run against remote-controlled values, or null when it is. */
export function patternRisk(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `it is longer than ${MAX_PATTERN_LENGTH} characters`;
  const stack: Frame[] = [{ ambiguous: false }];
  let unbounded = 0;
  let i = 0;
  // Reads a quantifier at i (if any): its upper bound (Infinity for * + {n,}) and the index after it.
  const quantifier = (at: number): { min: number; max: number; end: number } | null => {
    const c = pattern[at];
    let min = 0;
    let max: number;
    let end: number;
    if (c === '*' || c === '+') {
      min = c === '+' ? 1 : 0;
      max = Infinity;
      end = at + 1;
    } else if (c === '?') {
      max = 1;
      end = at + 1;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
      if (!m) return null;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      end = at + m[0].length;
    } else {
      return null;
    }
    if (pattern[end] === '?') end += 1; // lazy: the same backtracking
    return { min, max, end };
  };
  // After an atom ending at i: a quantifier there may make it repeat.
  const afterAtom = (innerAmbiguous: boolean): string | null => {
    const q = quantifier(i);
    if (!q) return null;
    i = q.end;
    if (q.max === Infinity) unbounded += 1;
    if (q.max > 1 && innerAmbiguous) return 'a repeated group itself contains a repetition or an alternative (nested repetition)';
    if (q.max !== Infinity && q.max > 1000) return 'it repeats more than 1000 times';
    // An exact count ({4}) leaves nothing to choose; any other repetition does.
    if (q.min !== q.max) stack.at(-1)!.ambiguous = true;
    return null;
  };
  while (i < pattern.length) {
    const c = pattern[i]!;
    let risk: string | null = null;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return 'it uses a back-reference';
      i += 2;
      risk = afterAtom(false);
    } else if (c === '[') {
      // A character class is one atom; skip to its unescaped end.
      i += 1;
      if (pattern[i] === '^') i += 1;
      if (pattern[i] === ']') i += 1;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      i += 1;
      risk = afterAtom(false);
    } else if (c === '(') {
      stack.push({ ambiguous: false });
      i += 1;
      if (pattern[i] === '?') {
        // (?: (?= (?! (?<= (?<! (?<name>
        i += 1;
        if (pattern[i] === '<' && pattern[i + 1] !== '=' && pattern[i + 1] !== '!') {
          while (i < pattern.length && pattern[i] !== '>') i += 1;
        }
        i += 1;
      }
    } else if (c === ')') {
      const frame = stack.pop();
      if (!frame || stack.length === 0) return 'its parentheses do not balance';
      i += 1;
      risk = afterAtom(frame.ambiguous);
      if (frame.ambiguous) stack.at(-1)!.ambiguous = true;
    } else if (c === '|') {
      stack.at(-1)!.ambiguous = true;
      i += 1;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      // A quantifier with nothing to repeat; RegExp will refuse the pattern itself.
      if (c === '{' && !quantifier(i)) {
        i += 1;
        risk = afterAtom(false);
      } else {
        return 'a repetition has nothing to repeat';
      }
    } else {
      i += 1;
      if (c !== '^' && c !== '$') risk = afterAtom(false);
    }
    if (risk) return risk;
    if (unbounded > MAX_UNBOUNDED) return `it has more than ${MAX_UNBOUNDED} unbounded repetitions`;
  }
  if (stack.length !== 1) return 'its parentheses do not balance';
  return null;
}

/** What Ajv calls to build a pattern's matcher (its `code.regExp` option). */
export type PatternEngine = ((pattern: string, flags: string) => { test(value: string): boolean }) & { code: string };

/**
 * A RegExp engine for Ajv that applies only safe patterns (see {@link patternRisk})
 * and only to values up to {@link MAX_PATTERN_INPUT} characters; a refused pattern
 * accepts every value and is reported once through `notice`.
 */
export function safePatternEngine(notice: (message: string) => void = () => undefined): PatternEngine {
  const reported = new Set<string>();
  const engine = (pattern: string, flags: string) => {
    const risk = patternRisk(pattern);
    if (risk) {
      if (!reported.has(pattern)) {
        reported.add(pattern);
        const shown = pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern;
        notice(`The service's specification has a pattern Swath does not check (${risk}, which could take very long to match): ${shown}. The service still validates the field.`);
      }
      return { test: () => true };
    }
    const re = new RegExp(pattern, flags);
    return { test: (value: string) => value.length > MAX_PATTERN_INPUT || re.test(value) };
  };
  return Object.assign(engine, { code: 'safePatternEngine' });
}
