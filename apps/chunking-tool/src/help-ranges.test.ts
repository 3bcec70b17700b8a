// Issue 15, "bounded": --help states the range of every numeric setting of the
// chunkyard.config.yaml sections chunking-tool reads, as the config error does, taken from the
// checks themselves (numericRanges). The built bin, as a user runs it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { numericRanges } from '@chunkyard/config';
import { afterAll, describe, expect, it } from 'vitest';

const BIN_NAME = 'chunking-tool';
const BIN = fileURLToPath(new URL('../bin/chunking-tool.js', import.meta.url));
const SECTIONS: readonly Parameters<typeof numericRanges>[0][] = ['chunking', 'llm'];
const dir = mkdtempSync(join(tmpdir(), 'chunking-tool-help-ranges-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'a.md'), '# A\n\nSome text.\n');
const ARGS = (config: string) => [join(dir, 'a.md'), '--out', join(dir, 'out'), '--config', config];

const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', timeout: 30_000 });

/** The items listed under `  <section>:` in the help, whitespace made single spaces. */
function listed(help: string, section: string): string {
  const m = new RegExp(`^( *)${section}:[^\\n]*\\n((?:\\1 +\\S.*\\n)+)`, 'm').exec(help);
  return m ? m[2]!.replace(/\s+/g, ' ') : '';
}

describe('chunking-tool --help and the config ranges', () => {
  const help = cli('--help').stdout;

  it.each(SECTIONS)('lists every numeric %s setting with its range', (section) => {
    const items = numericRanges(section);
    expect(items.length).toBeGreaterThan(0);
    const block = listed(help, section);
    for (const item of items) expect(block, `${section}: ${item}`).toMatch(new RegExp(`(^| )${item.replace(/\./g, '\\.')}(,|$| )`));
  });

  it.each(SECTIONS)('refuses a %s value just past the range its help states, exit 2, naming key and range', (section) => {
    const [key, range] = numericRanges(section)[0]!.split(' ') as [string, string];
    const [min, max] = range.split('..') as [string, string];
    const config = join(dir, `${section}.yaml`);
    const extra = section === 'llm' ? '  provider: ollama\n' : '';
    writeFileSync(config, `${section}:\n${extra}  ${key}: ${Number(max) + 1}\n`);
    expect(listed(help, section)).toContain(`${key} ${min}..${max}`);
    const r = cli(...ARGS(config));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^${BIN_NAME}: \\S+:\\d+: ${section}\\.${key}: expected an? (whole )?number from ${min} to ${max}, got ${Number(max) + 1}\\n`));
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
