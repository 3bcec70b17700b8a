/**
 * `--version` on every CLI: it prints `<bin> <version>` with the version of the package the
 * code was installed as. The built bin is run from a copy of the package whose package.json
 * says another version, so a version compiled in, or read from the wrong package.json (every
 * package in this repo is 0.1.0), fails.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, workspacePackages } from './workspace.js';

const tools = workspacePackages()
  .filter((p) => p.kind === 'app' && p.pkg.bin && typeof p.pkg.bin === 'object')
  .map((p) => ({ ...p, bin: Object.entries(p.pkg.bin as Record<string, string>)[0]! }));

const scratch = mkdtempSync(join(tmpdir(), 'chunkyard-version-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

describe.each(tools)('$pkg.name', ({ dir, pkg, bin: [binName, binPath] }) => {
  it('main(["--version"]) prints its name and version and exits 0', async () => {
    // Resolved through the `source` condition: the TypeScript entry of this package.
    const mod = (await import(pkg.name)) as { main: (argv: string[], io: Io) => Promise<number> };
    let out = '';
    let err = '';
    const code = await mod.main(['--version'], { stdout: (s) => void (out += s), stderr: (s) => void (err += s) });
    expect({ code, out, err }).toEqual({ code: 0, out: `${binName} ${pkg.version}\n`, err: '' });
  });

  it('the built bin reports the version of the package.json it is installed beside', () => {
    const copy = join(scratch, binName);
    for (const part of ['bin', 'dist']) cpSync(join(dir, part), join(copy, part), { recursive: true });
    const version = `${pkg.version}-versiontest.${process.pid}`;
    writeFileSync(join(copy, 'package.json'), JSON.stringify({ ...pkg, version }));
    // The bundle's npm imports resolve from the workspace's node_modules, as from an install.
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const out = execFileSync(process.execPath, [join(copy, binPath), '--version'], { encoding: 'utf8' });
    expect(out).toBe(`${binName} ${version}\n`);
  });
});
