// The README as a new user reads it outside chunkyard's repository (issue 15 walk): the install
// line must name the Nx version the e2e tests install, since a bare `nx` is the registry's
// latest (Nx 24, outside the peer range); and every `node <file>` it tells them to run must be
// a file of chunkyard's repository, named from the clone's root (the installed package has no
// e2e/ folder, and `node e2e/…` from a clone's root named no file).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const README = readFileSync(join(REPO, 'packages/nx/README.md'), 'utf8');
const rootPackage = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };

describe('packages/nx README', () => {
  it('installs the Nx version chunkyard tests with, not whatever the registry calls latest', () => {
    const installs = [...README.matchAll(/^npm i -D (\S+) @chunkyard\/nx\b/gm)].map((m) => m[1]);
    expect(installs.length).toBeGreaterThan(0);
    for (const nx of installs) expect(nx).toBe(`nx@${rootPackage.devDependencies.nx}`);
  });

  it('names every script it runs by its path from the root of a chunkyard clone', () => {
    const scripts = [...README.matchAll(/`node ((?:[\w.-]+\/)*[\w.-]+\.mjs)\b/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(existsSync(join(REPO, script)), script).toBe(true);
  });
});
