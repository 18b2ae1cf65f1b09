import { afterEach } from 'vitest';

// The unit projects' setup, run with every test file. The renderer tests install a stand-in for the
// page's bridge (window.swath, test/renderer/fake-bridge.ts); it goes after every test, so that no test
// and no later file of a worker's shared module graph talks to another test's bridge.
afterEach(() => {
  delete (globalThis as { swath?: unknown }).swath;
});
