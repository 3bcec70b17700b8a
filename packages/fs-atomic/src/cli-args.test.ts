// joinNegativeValues against the real node:util parseArgs: it turns `-n -1` into a form
// parseArgs accepts, and it never changes anything else.
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editDistance, emptyArgument, escapeControl, joinNegativeValues, numberOption, numberProblem, parseCliArgs } from './index.js';

const OPTIONS = {
  n: { type: 'string', short: 'n' },
  query: { type: 'string', short: 'q' },
  'max-distance': { type: 'string' },
  dir: { type: 'string', multiple: true },
  json: { type: 'boolean', default: false },
  verbose: { type: 'boolean', short: 'v', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const parse = (args: string[]) => parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });

const NEGATIVES = ['-1', '-0', '-0.5', '-.5', '-1e3', '-1E-3', '-Infinity', '-NaN', '-12abc', '-1.'];

describe('joinNegativeValues', () => {
  it('joins a value-taking option and the negative number after it, long and short', () => {
    expect(joinNegativeValues(['-q', 'x', '-n', '-1'], OPTIONS)).toEqual(['-q', 'x', '-n-1']);
    expect(joinNegativeValues(['--n', '-1'], OPTIONS)).toEqual(['--n=-1']);
    expect(joinNegativeValues(['--max-distance', '-0.5', 'docs'], OPTIONS)).toEqual(['--max-distance=-0.5', 'docs']);
    expect(joinNegativeValues(['-vn', '-Infinity'], OPTIONS)).toEqual(['-vn-Infinity']);
    expect(joinNegativeValues(['--dir', '-1', '--dir', '-2'], OPTIONS)).toEqual(['--dir=-1', '--dir=-2']);
    for (const neg of NEGATIVES) expect(parse(joinNegativeValues(['-n', neg], OPTIONS)).values.n).toBe(neg);
  });

  it('fixes the ambiguity parseArgs itself reports', () => {
    expect(() => parse(['-n', '-1'])).toThrow(/ambiguous/);
    expect(parse(joinNegativeValues(['-n', '-1'], OPTIONS)).values).toMatchObject({ n: '-1' });
  });

  it('leaves what is not an option value alone', () => {
    // A boolean takes no value: -1 after it stays a token of its own (parseArgs refuses it as an unknown option).
    expect(joinNegativeValues(['--json', '-1'], OPTIONS)).toEqual(['--json', '-1']);
    expect(joinNegativeValues(['-v', '-1'], OPTIONS)).toEqual(['-v', '-1']);
    // Already inline, an unknown option, a value inside a short group, after --.
    expect(joinNegativeValues(['--n=-1', '-2'], OPTIONS)).toEqual(['--n=-1', '-2']);
    expect(joinNegativeValues(['--nope', '-1'], OPTIONS)).toEqual(['--nope', '-1']);
    expect(joinNegativeValues(['-n5', '-1'], OPTIONS)).toEqual(['-n5', '-1']);
    expect(joinNegativeValues(['--', '-n', '-1'], OPTIONS)).toEqual(['--', '-n', '-1']);
    // Not negative numbers: an option-looking value stays for parseArgs to refuse.
    expect(joinNegativeValues(['-n', '-v'], OPTIONS)).toEqual(['-n', '-v']);
    expect(joinNegativeValues(['-n', '--json'], OPTIONS)).toEqual(['-n', '--json']);
    expect(joinNegativeValues(['-n', '-x1'], OPTIONS)).toEqual(['-n', '-x1']);
    expect(joinNegativeValues(['-n', '-inf'], OPTIONS)).toEqual(['-n', '-inf']);
  });

  it('skips an option value like parseArgs does, so a value is never read as an option', () => {
    // `-n` takes `-q` as its value here (and parseArgs refuses it); `-1` is then a token of its own.
    expect(joinNegativeValues(['-n', '-q', '-1'], OPTIONS)).toEqual(['-n', '-q', '-1']);
    // `--` as an option's value does not end the options.
    expect(joinNegativeValues(['-q', '--', '-n', '-1'], OPTIONS)).toEqual(['-q', '--', '-n-1']);
  });

  const token = fc.oneof(
    fc.constantFrom('-n', '--n', '-q', '--query', '--max-distance', '--dir', '--json', '-v', '-h', '-vh', '-vn', '--', '-', '--n=3', '-n3', '--nope', 'docs', 'x', '3', '0.5'),
    fc.string({ maxLength: 6 }),
  );
  const negative = fc.oneof(fc.constantFrom(...NEGATIVES), fc.double({ max: -Number.MIN_VALUE, noNaN: true }).map(String));

  it('never changes an argv with no negative number in it', () => {
    fc.assert(
      fc.property(fc.array(token.filter((t) => !/^-(?:\.?\d|Infinity$|NaN$)/.test(t)), { maxLength: 12 }), (argv) => {
        expect(joinNegativeValues(argv, OPTIONS)).toEqual(argv);
      }),
    );
  });

  it('never changes an argv parseArgs accepts as it is', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(token, negative), { maxLength: 12 }), (argv) => {
        let ok = true;
        try {
          parse(argv);
        } catch {
          ok = false;
        }
        fc.pre(ok);
        expect(joinNegativeValues(argv, OPTIONS)).toEqual(argv);
      }),
    );
  });

  it('never joins the token after a boolean option', () => {
    const boolean = fc.constantFrom('--json', '-v', '-h', '-vh', '--verbose');
    fc.assert(
      fc.property(fc.array(fc.oneof(boolean, negative, fc.constantFrom('docs', 'x')), { maxLength: 12 }), (argv) => {
        expect(joinNegativeValues(argv, OPTIONS)).toEqual(argv);
      }),
    );
  });

  it('leaves everything after the -- that ends the options alone', () => {
    const takesValue = /^(?:-n|--n|-q|--query|--max-distance|--dir|-vn)$/;
    fc.assert(
      fc.property(fc.array(fc.oneof(token, negative), { maxLength: 8 }), fc.array(fc.oneof(token, negative), { maxLength: 8 }), (head, tail) => {
        // `--` ends the options unless parseArgs takes it as the value of the option before it.
        fc.pre(!head.includes('--') && !takesValue.test(head.at(-1) ?? ''));
        const out = joinNegativeValues([...head, '--', ...tail], OPTIONS);
        expect(out.slice(out.indexOf('--') + 1)).toEqual(tail);
      }),
    );
  });

  it('makes any option given a negative number parse to that number', () => {
    const pair = fc.tuple(fc.constantFrom(['-n', 'n'], ['--n', 'n'], ['-q', 'query'], ['--query', 'query'], ['--max-distance', 'max-distance']), negative);
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 6 }), fc.array(fc.constantFrom('--json', '-v', 'docs'), { maxLength: 3 }), (pairs, rest) => {
        const argv = [...rest, ...pairs.flatMap(([[flag], value]) => [flag, value])];
        const { values } = parse(joinNegativeValues(argv, OPTIONS));
        const want: Record<string, string> = {};
        for (const [[, name], value] of pairs) want[name] = value;
        expect(values).toMatchObject(want);
      }),
    );
  });
});

describe('emptyArgument (issue 15 probe)', () => {
  it('names the first option or argument given as an empty string, and nothing else', () => {
    expect(emptyArgument({ out: 'x', json: false, n: undefined }, ['a'])).toBeNull();
    expect(emptyArgument({ out: '' }, ['a'])).toBe('--out: empty; give a value, or leave --out out');
    expect(emptyArgument({ dir: ['a', ''] }, [])).toBe('--dir: empty; give a value, or leave --dir out');
    expect(emptyArgument({}, ['a', ''])).toBe('an empty argument (""); give a path');
    // A blank value is not empty: the tools' own checks word it ("the query is blank").
    expect(emptyArgument({ query: ' ' }, [' '])).toBeNull();
  });
});

describe('parseCliArgs (issue 15 probe: a repeated option took the last value)', () => {
  const cli = (args: string[]) => parseCliArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });

  it('refuses a single-valued option given twice, in any spelling, as a parseArgs usage error', () => {
    for (const argv of [
      ['--n', '3', '--n', '5'],
      ['-n', '3', '--n=5'],
      ['-n3', '-n', '3'],
      ['--query', 'a', 'docs', '-q', 'b'],
      ['--n', '-1', '--n', '-2'],
    ]) {
      let err: unknown;
      try {
        cli(argv);
      } catch (e) {
        err = e;
      }
      expect(err, argv.join(' ')).toBeInstanceOf(TypeError);
      expect((err as NodeJS.ErrnoException).code).toBe('ERR_PARSE_ARGS_INVALID_OPTION_VALUE');
      expect((err as Error).message).toMatch(/^--(n|query): given twice \(".*", then ".*"\); give it once$/);
    }
    expect(() => cli(['--n', '3', '--n', '5'])).toThrow('--n: given twice ("3", then "5"); give it once');
  });

  it('quotes values terminal-safe and cut', () => {
    expect(() => cli(['-q', '\u001b[2J', '-q', 'x'.repeat(100)])).toThrow('--query: given twice ("\\u001b[2J", then "' + 'x'.repeat(40) + '…" (100 characters)); give it once');
  });

  it('lets booleans repeat and multiple options collect, and parses like parseArgs otherwise', () => {
    expect(cli(['-v', '--verbose', '--dir', 'a', '--dir', 'b', '-n', '-1', 'x']).values).toEqual({ verbose: true, json: false, help: false, dir: ['a', 'b'], n: '-1' });
    expect(cli(['--', '--n', '1', '--n', '2']).positionals).toEqual(['--n', '1', '--n', '2']);
    expect('tokens' in cli(['x'])).toBe(false);
  });

  it('agrees with parseArgs on every argv without a repeated single-valued option (property)', () => {
    const pair = fc.tuple(fc.constantFrom('--n', '-n', '--query', '-q', '--max-distance', '--dir', '--json', '-v', 'docs'), fc.constantFrom('1', '-1', 'a', '-0.5'));
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 6 }), (pairs) => {
        const argv = pairs.flatMap(([f, v]) => (f.startsWith('-') && !['--json', '-v'].includes(f) ? [f, v] : [f]));
        let want: unknown;
        try {
          want = parse(joinNegativeValues(argv, OPTIONS));
        } catch (e) {
          want = (e as NodeJS.ErrnoException).code;
        }
        const names = pairs.map(([f]) => ({ '-n': 'n', '--n': 'n', '-q': 'query', '--query': 'query', '--max-distance': 'max-distance' })[f as '-n']).filter((x) => x);
        const repeated = names.length !== new Set(names).size;
        let got: unknown;
        try {
          got = cli(argv);
        } catch (e) {
          got = (e as NodeJS.ErrnoException).code;
        }
        if (repeated && typeof want !== 'string') expect(got).toBe('ERR_PARSE_ARGS_INVALID_OPTION_VALUE');
        else expect(got).toEqual(want);
      }),
    );
  });
});

describe('parseCliArgs: a misspelt option (issue 15 probe)', () => {
  const cli = (args: string[]) => parseCliArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  const messageOf = (args: string[]): string => {
    try {
      cli(args);
    } catch (e) {
      expect((e as NodeJS.ErrnoException).code).toBe('ERR_PARSE_ARGS_UNKNOWN_OPTION');
      return (e as Error).message;
    }
    throw new Error(`accepted ${args.join(' ')}`);
  };

  it('names the option it is near: a typo, another case, the start of a name', () => {
    // parseArgs said only: place a positional argument starting with '-' after '--', which
    // for `--quey x` made --quey a path.
    expect(messageOf(['--quey', 'x'])).toBe("Unknown option '--quey'; did you mean --query?");
    expect(messageOf(['--JSON'])).toBe("Unknown option '--JSON'; did you mean --json?");
    expect(messageOf(['--max-dist=3'])).toBe("Unknown option '--max-dist'; did you mean --max-distance?");
    expect(messageOf(['--verbos'])).toBe("Unknown option '--verbos'; did you mean --verbose?");
  });

  // Only the start of a name counted: the longer spelling of an option (--cache-directory for
  // --cache-dir) got the path advice, as if nothing were near.
  it('names the option a longer spelling starts with, the longest such one', () => {
    expect(messageOf(['--directory', 'x'])).toBe("Unknown option '--directory'; did you mean --dir?");
    expect(messageOf(['--query-string=x'])).toBe("Unknown option '--query-string'; did you mean --query?");
    expect(messageOf(['--jsonl'])).toBe("Unknown option '--jsonl'; did you mean --json?");
    const withCache = { ...OPTIONS, cache: { type: 'boolean' }, 'cache-dir': { type: 'string' } } as const;
    const message = (args: string[]) => {
      try {
        parseCliArgs({ args, options: withCache, allowPositionals: true, strict: true });
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(message(['--cache-directory', 'x'])).toBe("Unknown option '--cache-directory'; did you mean --cache-dir?");
    expect(message(['--Cache-Dirs', 'x'])).toBe("Unknown option '--Cache-Dirs'; did you mean --cache-dir?");
    expect(message(['--cache-d', 'x'])).toBe("Unknown option '--cache-d'; did you mean --cache-dir?");
    expect(message(['--caches'])).toBe("Unknown option '--caches'; did you mean --cache?");
    // Two names the typed one starts: no guess between them.
    expect(suggestion('max', ['max-distance', 'max-tokens'])).toBeNull();
    // A name of one or two letters is no start of a longer word (--nope is not --n, --dbx not --db).
    expect(suggestion('nope', ['n', 'db'])).toBeNull();
    expect(suggestion('dbfile', ['n', 'db'])).toBeNull();
  });

  it('every suggestion is a real option, and near what was typed (property)', () => {
    const names = Object.keys(OPTIONS);
    const word = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9-]{0,15}$/);
    fc.assert(
      fc.property(fc.oneof(word, fc.tuple(fc.constantFrom(...names), word).map(([n, w]) => n + w), fc.tuple(fc.constantFrom(...names), fc.nat()).map(([n, k]) => n.slice(0, k))), (typed) => {
        fc.pre(typed.length > 0 && !names.includes(typed));
        let message = 'accepted';
        try {
          cli([`--${typed}`]);
        } catch (e) {
          message = (e as Error).message;
        }
        const m = /did you mean --(.*)\?$/.exec(message);
        if (m === null) return;
        const s = m[1]!;
        expect(names).toContain(s);
        const t = typed.toLowerCase();
        expect(t.startsWith(s) || s.startsWith(t) || editDistance(t, s) <= 2).toBe(true);
      }),
    );
  });

  // parseArgs's own advice left a quote open: "… as in '-- "--bogus"" (helper-51's s55 probe).
  it('gives a path that starts with "-" its advice when nothing is near, every quote closed', () => {
    expect(messageOf(['--bogus'])).toBe('Unknown option \'--bogus\'; a path that starts with "-" goes after "--" (as in -- "--bogus") or as "./--bogus"');
    expect(messageOf(['-x'])).toMatch(/^Unknown option '-x'/);
    expect(messageOf(['-x'])).not.toContain('did you mean');
  });
});

describe('numberProblem / numberOption: one wording for every bad number', () => {
  const whole = { min: 1, max: 100 };
  it.each([
    ['1e9', '--limit: expected a whole number from 1 to 100, got "1e9"'],
    ['0', '--limit: expected a whole number from 1 to 100, got "0"'],
    ['101', '--limit: expected a whole number from 1 to 100, got "101"'],
    ['0x10', '--limit: expected a whole number from 1 to 100, got "0x10"'],
    [' 5', '--limit: expected a whole number from 1 to 100, got " 5"'],
    ['', '--limit: expected a whole number from 1 to 100, got ""'],
    ['1.5', '--limit: expected a whole number from 1 to 100, got "1.5"'],
    ['-1', '--limit: expected a whole number from 1 to 100, got "-1"'],
    ['-0', '--limit: expected a whole number from 1 to 100, got "-0"'],
    ['Infinity', '--limit: expected a whole number from 1 to 100, got "Infinity"'],
    ['99999999999999999999999', '--limit: expected a whole number from 1 to 100, got "99999999999999999999999"'],
    // Terminal-safe and cut: a pasted blob or an escape sequence is not echoed raw.
    ['\u001b[2J', '--limit: expected a whole number from 1 to 100, got "\\u001b[2J"'],
    ['7'.repeat(50), `--limit: expected a whole number from 1 to 100, got "${'7'.repeat(40)}…" (50 characters)`],
  ])('whole 1..100, %j', (raw, message) => {
    expect(numberProblem('--limit', raw, whole)).toBe(message);
    expect(() => numberOption('--limit', raw, whole)).toThrow(new RangeError(message));
  });

  it('decimals: a plain decimal in range, a negative minimum allowed', () => {
    const gate = { min: -100, max: 10_000, whole: false };
    expect(numberOption('--max-latency-delta', '-12.5', gate)).toBe(-12.5);
    expect(numberOption('--max-latency-delta', '.5', gate)).toBe(0.5);
    expect(numberOption('--max-latency-delta', '-0', gate)).toBe(0);
    expect(Object.is(numberOption('--max-latency-delta', '-0', gate), -0)).toBe(false);
    for (const bad of ['1e3', '-101', 'NaN', '0x1', '+1', '1 ', '.', '-']) {
      expect(numberProblem('--max-latency-delta', bad, gate)).toBe(`--max-latency-delta: expected a number from -100 to 10000, got ${JSON.stringify(bad)}`);
    }
  });

  it('a minus sign only where the range has negatives', () => {
    expect(numberProblem('--min-iou', '-0', { min: 0, max: 1, whole: false })).toBe('--min-iou: expected a number from 0 to 1, got "-0"');
    expect(numberProblem('--max', '-0', { min: 0, max: 5 })).toBe('--max: expected a whole number from 0 to 5, got "-0"');
    expect(numberOption('--x', '-0', { min: -1, max: 1 })).toBe(0);
  });

  it('throws the error class it is given', () => {
    class UsageError extends Error {}
    expect(() => numberOption('-n/--n', 'x', { min: 0, max: 5 }, UsageError)).toThrow(UsageError);
  });

  it('accepts every whole number in range, as written, and refuses its neighbours outside', () => {
    fc.assert(
      fc.property(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 0, max: 100 }), (min, span) => {
        const range = { min, max: min + span };
        for (const n of [min, min + span, min + Math.floor(span / 2)]) expect(numberOption('--x', String(n), range)).toBe(n);
        expect(numberProblem('--x', String(min - 1), range)).toContain(`from ${min} to ${min + span}, got "${min - 1}"`);
        expect(numberProblem('--x', String(min + span + 1), range)).not.toBeNull();
      }),
    );
  });
});

describe('parseCliArgs: a path that starts with "-" (issue 15 probe: a folder named -lead)', () => {
  const cli = (args: string[]) => parseCliArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  const errorOf = (args: string[]): NodeJS.ErrnoException | null => {
    try {
      cli(args);
      return null;
    } catch (e) {
      return e as NodeJS.ErrnoException;
    }
  };

  it('an unknown letter in a group names the argument it came from, and both ways to give it as a path', () => {
    // parseArgs: "Unknown option '-l'. … as in '-- "-l"" (a letter never typed alone, a quote left open).
    expect(errorOf(['-lead'])?.message).toBe(`Unknown option '-l' (in "-lead"); a path that starts with "-" goes after "--" (as in -- "-lead") or as "./-lead"`);
    expect(errorOf(['-hvx'])?.message).toBe(`Unknown option '-x' (in "-hvx"); a path that starts with "-" goes after "--" (as in -- "-hvx") or as "./-hvx"`);
    expect(errorOf(['-x'])?.message).toBe(`Unknown option '-x'; a path that starts with "-" goes after "--" (as in -- "-x") or as "./-x"`);
    expect(errorOf(['-x'])?.code).toBe('ERR_PARSE_ARGS_UNKNOWN_OPTION');
    // Words after "--" are paths, never options: the group met before it is named.
    expect(errorOf(['-hz', '--', '-zed'])?.message).toContain('(in "-hz")');
  });

  it('an option followed by an argument that starts with "-" is one line naming both, and how to write it', () => {
    // parseArgs: three lines ("Option '--query' argument is ambiguous.\nDid you forget …"), which the CLIs printed as one with \u000a in it.
    const err = errorOf(['--query', '-lead/x']);
    expect(err?.code).toBe('ERR_PARSE_ARGS_INVALID_OPTION_VALUE');
    expect(err?.message).toBe(`--query: the argument after it, "-lead/x", starts with "-", so it was not taken as its value; give --query a value, or write "--query=-lead/x" if that is it`);
    expect(errorOf(['-vq', '--json'])?.message).toBe(`--query: the argument after it, "--json", starts with "-", so it was not taken as its value; give --query a value, or write "--query=--json" if that is it`);
    // A negative number is still a value (joinNegativeValues), not this error.
    expect(errorOf(['-n', '-1'])).toBeNull();
  });

  it('whatever the argument, the message is one terminal-safe line naming it (hostile names)', () => {
    const name = fc.string({ unit: fc.oneof(fc.constantFrom('-', 'h', 'v', 'x', '"', "'", '\n', '\t', '\u001b', '\u009b', '\u202e', 'é', ' ', '/'), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })), minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(name, fc.boolean(), (tail, asValue) => {
        const arg = `-${tail}`;
        const err = errorOf(asValue ? ['--query', arg] : [arg]);
        // parseArgs's own words for an unknown long option are left as they are (each CLI prints them through oneLine).
        if (err === null || !/^(Unknown option '-.'|--query: the argument after it)/su.test(err.message)) return;
        expect(err.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        expect(err.message).toContain(escapeControl(JSON.stringify(arg)));
      }),
      { numRuns: 500 },
    );
  });
});


/** The option parseCliArgs suggests for `--typed` among options `names` (strings), or null. */
function suggestion(typed: string, names: readonly string[]): string | null {
  try {
    parseCliArgs({ args: [`--${typed}`], options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])), allowPositionals: true, strict: true });
  } catch (e) {
    return /did you mean --(.*)\?$/.exec((e as Error).message)?.[1] ?? null;
  }
  throw new Error(`accepted --${typed}`);
}

describe('editDistance (the one edit distance of parseCliArgs and chunkyard\'s command suggestions)', () => {
  /** A distance from its recursive definition (memoised): Levenshtein's, and with swaps the optimal string alignment's. */
  const byDefinition = (a: string, b: string, swaps: boolean): number => {
    const memo = new Map<number, number>();
    const d = (i: number, j: number): number => {
      if (i === 0 || j === 0) return i + j;
      const key = i * (b.length + 1) + j;
      const known = memo.get(key);
      if (known !== undefined) return known;
      const options = [d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1)];
      if (swaps && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) options.push(d(i - 2, j - 2) + 1);
      memo.set(key, Math.min(...options));
      return memo.get(key)!;
    };
    return d(a.length, b.length);
  };
  // Three letters, so that repeats and neighbour swaps are common; and any UTF-16 units.
  const word = fc.oneof(fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 9 }), fc.string({ unit: 'binary', maxLength: 6 }));

  it('is the definition, without and with swaps', () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        expect(editDistance(a, b)).toBe(byDefinition(a, b, false));
        expect(editDistance(a, b, { swaps: false })).toBe(byDefinition(a, b, false));
        expect(editDistance(a, b, { swaps: true })).toBe(byDefinition(a, b, true));
      }),
    );
  });

  it('is symmetric, zero only for the same string, at least the length difference, and a swap never costs more', () => {
    fc.assert(
      fc.property(word, word, fc.boolean(), (a, b, swaps) => {
        const d = editDistance(a, b, { swaps });
        expect(editDistance(b, a, { swaps })).toBe(d);
        expect(d === 0).toBe(a === b);
        expect(d).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
        expect(editDistance(a, b, { swaps: true })).toBeLessThanOrEqual(editDistance(a, b));
      }),
    );
  });

  it('counts a swap of neighbours as one edit only with swaps', () => {
    expect([editDistance('sepc', 'spec'), editDistance('sepc', 'spec', { swaps: true })]).toEqual([2, 1]);
    expect([editDistance('kitten', 'sitting'), editDistance('kitten', 'sitting', { swaps: true })]).toEqual([3, 3]);
    // Optimal string alignment edits no letter twice: `ca` → `abc` is 3, not Damerau's 2.
    expect(editDistance('ca', 'abc', { swaps: true })).toBe(3);
    expect([editDistance('', 'query'), editDistance('quey', 'query')]).toEqual([5, 1]);
  });
});
