import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources (`source` export condition), never to
// their built dist: a dist bundles its @chunkyard dependencies, so classes such as ConfigError
// would exist twice and `instanceof` would fail across them. Tests run in Vite's SSR
// environment, which takes its conditions from `ssr.resolve`.
const conditions = ['source'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/e2e/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'apps/*/e2e/**/*.test.ts', 'tools/**/*.test.ts', 'bench/**/*.test.ts'],
    // The Nx cache test drives real `nx` runs; give it room on 2 cores.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Fixes fast-check's seed in CI (and to FC_SEED when given); see the file.
    setupFiles: ['tools/fast-check-seed.ts'],
  },
});
