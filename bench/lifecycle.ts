// What every benchmark's entry does around its run: clean up (servers, clusters, worktrees) on
// SIGINT/SIGTERM (exit 130), when the run exceeds its budget (exit 1) and when it fails (exit 1);
// and write its results file.
import fs from 'node:fs';
import path from 'node:path';

export function runBench(main: () => Promise<void>, cleanup: () => Promise<void>, budgetMs: number) {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  const watchdog = setTimeout(() => {
    console.error(`The benchmark exceeded its ${Math.round(budgetMs / 1000)} s budget; stopping`);
    void cleanup().finally(() => process.exit(1));
  }, budgetMs);
  watchdog.unref();
  main()
    .then(() => clearTimeout(watchdog))
    .catch(async (err) => {
      console.error(err);
      await cleanup();
      process.exit(1);
    });
}

/** Writes a run's Markdown to its results file (bench/results/…) and says where. */
export function writeResults(file: string, markdown: string, log: (line: string) => void = console.error) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, markdown);
  log(`Written to ${path.relative(process.cwd(), file)}`);
}
