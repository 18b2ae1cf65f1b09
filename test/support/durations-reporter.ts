import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints, after a run, how long each part of the suite took (unit, integration, e2e: the vitest
 * projects, <part>-<name> counted in <part>, each listed under its part when a part has several)
 * and the ten slowest test files, so a slow test is seen the day it becomes slow.
 * A part's wall time runs from its first file's start to its last file's end (parts overlap when
 * they run together); "in files" adds up the files' own times in their workers (environment,
 * import, setup and tests), of which "importing" is the import of the file and its modules.
 */
export default class DurationsReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly ended = new Map<string, number>();
  private runStart = 0;

  onInit(): void {
    this.runStart = performance.now();
  }

  onTestModuleStart(module: TestModule): void {
    this.started.set(module.moduleId, performance.now());
  }

  onTestModuleEnd(module: TestModule): void {
    this.ended.set(module.moduleId, performance.now());
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (!modules.length) return;
    const rows = modules.map((m) => {
      const d = m.diagnostic();
      return {
        // A project named <part>-<something> belongs to that part (unit-isolated to unit, integration-nobuild to integration).
        part: (m.project.name || 'default').split('-')[0]!,
        project: m.project.name || 'default',
        file: m.relativeModuleId,
        // The file's whole time in its worker: environment, harness, import, setup and the tests.
        ms: d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration,
        importMs: d.collectDuration,
        start: this.started.get(m.moduleId) ?? this.runStart,
        end: this.ended.get(m.moduleId) ?? performance.now(),
      };
    });
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const lines = ['', 'Durations'];
    const parts = [...new Set(rows.map((r) => r.part))];
    for (const part of parts) {
      const of = rows.filter((r) => r.part === part);
      const wall = Math.max(...of.map((r) => r.end)) - Math.min(...of.map((r) => r.start));
      const sum = of.reduce((a, r) => a + r.ms, 0);
      const imports = of.reduce((a, r) => a + r.importMs, 0);
      lines.push(`  ${part.padEnd(12)} ${String(of.length).padStart(4)} files  ${s(wall).padStart(8)} wall  ${s(sum).padStart(8)} in files (${s(imports)} importing)`);
      const projects = [...new Set(of.map((r) => r.project))];
      if (projects.length > 1) {
        for (const project of projects) {
          const p = of.filter((r) => r.project === project);
          lines.push(`    ${project.padEnd(21)} ${String(p.length).padStart(4)} files  ${s(p.reduce((a, r) => a + r.ms, 0)).padStart(8)} in files (${s(p.reduce((a, r) => a + r.importMs, 0))} importing)`);
        }
      }
    }
    lines.push(`  ${'whole run'.padEnd(12)} ${String(rows.length).padStart(4)} files  ${s(performance.now() - this.runStart).padStart(8)} wall`);
    lines.push('  Slowest files:');
    for (const r of [...rows].sort((a, b) => b.ms - a.ms).slice(0, 10)) lines.push(`  ${s(r.ms).padStart(8)}  ${r.project.padEnd(21)} ${r.file} (${s(r.importMs)} importing)`);
    console.log(lines.join('\n'));
  }
}
