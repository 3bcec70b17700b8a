// The test files that spawn the bin need apps/docs-store/dist built from the current
// sources, and vitest runs them in parallel processes: two builds writing dist/ at once, or
// one spawning the bin while another rewrites it, would fail at random. So the first one
// builds under a lock (a directory, created atomically) and the others find dist/ fresh.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = join(REPO, 'apps/docs-store/bin/docs-store.js');
const APP = join(REPO, 'apps/docs-store');
// In the temp folder (not the work tree), one per checkout.
const LOCK = join(tmpdir(), `chunkyard-docs-store-build-${createHash('sha256').update(APP).digest('hex').slice(0, 12)}.lock`);

function newestSource(): number {
  let newest = 0;
  for (const dir of [join(APP, 'src'), ...readdirSync(join(REPO, 'packages')).map((p) => join(REPO, 'packages', p, 'src'))]) {
    let names: string[];
    try {
      names = readdirSync(dir, { recursive: true }) as string[];
    } catch {
      continue;
    }
    for (const name of names) if (name.endsWith('.ts') && !name.endsWith('.test.ts')) newest = Math.max(newest, statSync(join(dir, name)).mtimeMs);
  }
  return newest;
}

export async function ensureBuilt(): Promise<void> {
  for (const started = Date.now(); ; ) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // A lock older than 5 minutes is a crashed run's.
      if (Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 300_000) rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() - started > 300_000) throw new Error(`${LOCK}: still locked after 5 minutes`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    const built = statSync(join(APP, 'dist/main.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (built <= newestSource()) execFileSync('node', ['tools/build.mjs', 'apps/docs-store'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
