// Issue 15, "bounded": a tool's --help states the range of every numeric setting of the
// chunkyard.config.yaml sections it reads, as the config error does, taken from the checks
// themselves (numericRanges). One suite, run by each tool's help-ranges.test.ts on its built bin.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { numericRanges } from '@chunkyard/config';
import { describe, expect, it } from 'vitest';

type Section = Parameters<typeof numericRanges>[0];

export interface HelpRangesCase {
  /** The tool's name, as its messages start. */
  binName: string;
  /** Its built bin. */
  bin: string;
  /** The config sections it reads. */
  sections: readonly Section[];
  /** A folder for the config files written (and the cwd of every run). */
  dir: () => string;
  /** The arguments of a run that reads `config`. */
  args: (config: string) => string[];
}

/** The items listed under `  <section>:` in the help, whitespace made single spaces. */
function listed(help: string, section: string): string {
  const m = new RegExp(`^( *)${section}:[^\\n]*\\n((?:\\1 +\\S.*\\n)+)`, 'm').exec(help);
  return m ? m[2]!.replace(/\s+/g, ' ') : '';
}

export function describeHelpRanges(c: HelpRangesCase): void {
  const cli = (...args: string[]) => spawnSync(process.execPath, [c.bin, ...args], { cwd: c.dir(), encoding: 'utf8', timeout: 30_000 });

  describe(`${c.binName} --help and the config ranges`, () => {
    it.each(c.sections)('lists every numeric %s setting with its range', (section) => {
      const help = cli('--help').stdout;
      const items = numericRanges(section);
      expect(items.length).toBeGreaterThan(0);
      const block = listed(help, section);
      for (const item of items) expect(block, `${section}: ${item}`).toMatch(new RegExp(`(^| )${item.replace(/\./g, '\\.')}(,|$| )`));
    });

    it.each(c.sections)('refuses a %s value just past the range its help states, exit 2, naming key and range', (section) => {
      const help = cli('--help').stdout;
      const [key, range] = numericRanges(section)[0]!.split(' ') as [string, string];
      const [min, max] = range.split('..') as [string, string];
      const config = join(c.dir(), `${section}.yaml`);
      const extra = section === 'llm' ? '  provider: ollama\n' : '';
      writeFileSync(config, `${section}:\n${extra}  ${key}: ${Number(max) + 1}\n`);
      expect(listed(help, section)).toContain(`${key} ${min}..${max}`);
      const r = cli(...c.args(config));
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^${c.binName}: \\S+:\\d+: ${section}\\.${key}: expected an? (whole )?number from ${min} to ${max}, got ${Number(max) + 1}\\n`));
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  });
}
