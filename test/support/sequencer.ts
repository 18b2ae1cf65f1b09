import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The environment a test file asks for in its docblock (`// @vitest-environment jsdom`), or the project's. */
function environment(spec: TestSpecification): string {
  const asked = /@vitest-environment\s+([\w-]+)/.exec(readFileSync(spec.moduleId, 'utf8'));
  return asked?.[1] ?? spec.project.config.environment;
}

/** `--sequence.shuffle` or `--sequence.shuffle.files` on the command line (vitest leaves the file order to this sequencer then too). */
const SHUFFLE = process.argv.some((a) => /^--sequence\.shuffle(\.files)?(=true)?$/.test(a));

/** A seeded order (mulberry32), so that a shuffled run that failed can be repeated with its seed. */
function shuffled<T>(items: T[], seed: number): T[] {
  let t = seed >>> 0;
  const random = () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * vitest's order (group, project, then the slowest or largest files first), with each project's files
 * of one environment kept together. A worker of a project that does not isolate its files (unit) runs
 * file after file in one module graph only while the next queued file has the same environment; when
 * a jsdom file comes next it is stopped and a fresh one starts and imports everything again. Interleaved
 * node and jsdom files started a fork for every few files; kept together, each worker switches once.
 * With `--sequence.shuffle(.files)` the files of each project and environment are shuffled (by
 * `--sequence.seed`, printed): the orders in which files can share a module graph.
 */
export default class EnvironmentSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    let sorted = await super.sort(files);
    if (SHUFFLE) {
      const seed = this.ctx.config.sequence.seed ?? Date.now();
      console.log(`Test files shuffled within each project and environment, seed ${seed} (--sequence.seed=${seed} repeats it)`);
      sorted = shuffled(sorted, seed);
    }
    const key = (s: TestSpecification) => `${s.project.config.sequence.groupOrder}\u0000${s.project.name}\u0000${environment(s) === 'node' ? 0 : 1}`;
    // Stable: node files first, then jsdom, each project's in the order above.
    return sorted
      .map((s, i) => ({ s, i, k: key(s) }))
      .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i))
      .map((x) => x.s);
  }
}
