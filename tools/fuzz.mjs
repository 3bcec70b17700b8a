#!/usr/bin/env node
// Structure-aware fuzzing of the chunker (issue 15: "every input gets an answer", on fresh
// probes). Each document nests quotes, lists and footnotes around every block kind (headings of
// both forms, fences open and closed, indented code, tables, HTML blocks, definitions, breaks),
// with lone-CR, CRLF or LF line ends, tabs and non-ASCII text; each is chunked with drawn
// options (every strategy, caps down to 16 tokens, both parsers) and checked:
//   - chunkDocument never throws but ChunkOptionsError (its own validate() checks every record);
//   - on one document in four, chunkDocumentStream with a small window gives the same records;
//   - with --conform, on one in three, the fast block producer gives remark's blocks. Differences
//     are counted, and the first --keep of them saved, each cut down to a minimal document.
// Failures are saved to --out as JSON (the document, the options, the error) and the exit
// status is 1. Progress goes to stderr every 10 seconds. Not a test: run it, on 2 cores, alone.
//
//   node tools/fuzz.mjs [--seconds 300] [--seed 1] [--out fuzz-out] [--conform] [--keep 30]
//                       [--chunking packages/chunking/dist/index.js]
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = `usage: node tools/fuzz.mjs [--seconds N] [--seed N] [--out DIR] [--conform] [--keep N] [--chunking FILE]
  --seconds N      how long to run (default 300)
  --seed N         the generator's seed, a whole number from 1 (default 1); a run is repeatable
  --out DIR        where failures and minimized differences are saved (default fuzz-out)
  --conform        also compare the fast block producer with remark's (slower: remark parses)
  --keep N         differences saved with --conform (default 30)
  --chunking FILE  the chunking build to fuzz (default packages/chunking/dist/index.js)`;

let args;
try {
  args = parseArgs({
    options: {
      seconds: { type: 'string', default: '300' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string', default: 'fuzz-out' },
      conform: { type: 'boolean', default: false },
      keep: { type: 'string', default: '30' },
      chunking: { type: 'string', default: 'packages/chunking/dist/index.js' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: false,
  }).values;
} catch (error) {
  console.error(`fuzz: ${error.message}\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const seconds = Number(args.seconds);
const seed = Number(args.seed);
const keep = Number(args.keep);
if (!(seconds > 0 && seconds <= 86_400) || !Number.isInteger(seed) || seed < 1 || seed > 0xffffffff || !Number.isInteger(keep) || keep < 0) {
  console.error(`fuzz: --seconds must be over 0 (at most a day), --seed a whole number from 1 to 4294967295, --keep a whole number from 0\n${USAGE}`);
  process.exit(2);
}
const chunking = await import(pathToFileURL(resolve(args.chunking)).href).catch((error) => {
  console.error(`fuzz: cannot load ${args.chunking}: ${error.message} (build it: node tools/build.mjs packages/chunking)`);
  process.exit(2);
});
const { chunkDocument, chunkDocumentStream, ChunkOptionsError, fastBlocks, flatten, parse } = chunking;
const out = resolve(args.out);

// xorshift32: a run is repeatable from its seed.
let state = seed >>> 0;
const random = () => {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state / 4294967296;
};
const between = (a, b) => a + Math.floor(random() * (b - a + 1));
const pick = (items) => items[Math.floor(random() * items.length)];

const WORDS = ['the', 'API', 'x', 'fn()', '`c`', '**b**', '*e*', '_u_', '[l](u)', '[ref]', '[^1]', '<b>', '&amp;', '\\*', 'données', '数据', '🙂', 'İ', 'ﬁ', 'a|b', 'http://x.y/z', '<http://a>', '~~s~~', '![i](p)', '\u00a0', '\u200b', 'e.g.', '1.', '2)', '-', '+', '#', '>', '`', '```', '~~~', '|', '---', '===', '***', '<!--', '-->', '<div>', '</div>', '[x]:', '\t', '   ', '\u2028', '\r', 'ا', 'ב'];
let eol = '\n';
const inline = () => Array.from({ length: between(0, 12) }, () => pick(WORDS)).join(pick([' ', ' ', ' ', '  ', '\t']));

function block(depth) {
  switch (between(0, depth > 4 ? 9 : 15)) {
    case 0:
    case 1:
      return inline();
    case 2:
      return `${'#'.repeat(between(1, 7))}${pick([' ', '\t', ''])}${inline()}${pick(['', ' #', ' ###'])}`;
    case 3:
      return `${inline()}${eol}${pick(['---', '===', '-', '= =', '  ---  '])}`;
    case 4: {
      const fence = pick(['```', '~~~', '````', '`````']);
      return `${' '.repeat(between(0, 3))}${fence}${pick(['', 'js', ' py x', '{.c}'])}${eol}${Array.from({ length: between(0, 4) }, inline).join(eol)}${random() < 0.8 ? eol + fence : ''}`;
    }
    case 5:
      return Array.from({ length: between(1, 4) }, () => `    ${inline()}`).join(eol);
    case 6: {
      const columns = between(1, 6);
      const rows = Array.from({ length: between(0, 4) }, () => `|${` ${inline()} |`.repeat(between(0, columns + 1))}`);
      return [`|${' h |'.repeat(columns)}`, `|${pick([' --- |', ' :-: |', ' -: |'])}${' --- |'.repeat(columns - 1)}`, ...rows].join(eol);
    }
    case 7:
      return `${pick(['<div>', '<!-- c', '<?x', '<![CDATA[', '<pre>', '<script>', '<custom-el a="1">', '<!X'])}${eol}${inline()}${random() < 0.6 ? eol + pick(['</div>', '-->', '?>', ']]>', '</pre>', '</script>', '', '>']) : ''}`;
    case 8:
      return `[${pick(['a', 'ref', 'x y', 'Ü'])}]:${pick([' ', '\t', eol])}${pick(['/u', '<a b>', 'http://x'])}${pick(['', ' "t"', " 't'", `${eol}"t"`])}`;
    case 9:
      return pick(['---', '***', '___', '- - -', '* * *']);
    case 10:
    case 11: {
      const marker = pick(['-', '*', '+', '1.', '2)', '10.']);
      const indent = ' '.repeat(marker.length + 1);
      const items = Array.from({ length: between(1, 4) }, () => {
        const lines = blocks(depth + 1, between(1, 3)).split(/\r\n|\n|\r/);
        // Some lines left unindented: lazy continuation lines.
        return marker + pick([' ', '  ', '\t', ' ']) + lines.map((l, i) => (i === 0 || random() < 0.15 ? l : indent + l)).join(eol);
      });
      return items.join(eol + (random() < 0.3 ? eol : ''));
    }
    case 12:
    case 13:
      return blocks(depth + 1, between(1, 3))
        .split(/\r\n|\n|\r/)
        .map((l) => (random() < 0.15 ? l : `>${pick([' ', '', '  '])}${l}`))
        .join(eol);
    case 14:
      return `[^${pick(['1', 'n', 'x y'])}]: ${inline()}${eol}    ${inline()}`;
    default:
      return `${inline()}${eol}${inline()}`;
  }
}
const blocks = (depth, count) => Array.from({ length: count }, () => block(depth)).join(eol + (random() < 0.7 ? eol : ''));
function documentText() {
  eol = pick(['\n', '\n', '\n', '\r\n', '\r']);
  const body = blocks(0, between(1, 10));
  return random() < 0.1 ? `---${eol}title: ${inline()}${eol}---${eol}${body}` : body;
}
const drawOptions = () => ({
  docName: 'fuzz',
  strategy: pick(['semantic', 'semantic', 'token-window', 'hierarchical', 'paginate']),
  maxTokens: pick([16, 17, 24, 32, 64, 128, 512]),
  parser: random() < 0.15 ? 'remark' : 'fast',
  overlapTokens: pick([0, 0, 4]),
  ...(random() < 0.5 ? { breadcrumbs: pick(['always', 'none', 'conditional']) } : {}),
});

const blocksDiffer = (text) => JSON.stringify(fastBlocks(text).blocks) !== JSON.stringify(flatten(parse(text)));

/** A shortest document (by lines, then characters) whose blocks still differ: delta debugging. */
function minimized(text) {
  const cut = (units) => {
    let n = 2;
    while (units.length >= 2) {
      const size = Math.ceil(units.length / n);
      let reduced = false;
      for (let i = 0; i < units.length; i += size) {
        const rest = units.slice(0, i).concat(units.slice(i + size));
        if (blocksDiffer(rest.join(''))) {
          units = rest;
          n = Math.max(n - 1, 2);
          reduced = true;
          break;
        }
      }
      if (!reduced) {
        if (n >= units.length) break;
        n = Math.min(units.length, n * 2);
      }
    }
    return units.join('');
  };
  return cut([...cut(text.split(/(?<=\n)/))]);
}

let saved = 0;
function save(kind, n, record) {
  mkdirSync(out, { recursive: true });
  const file = resolve(out, `${kind}-${seed}-${n}.json`);
  writeFileSync(file, `${JSON.stringify(record, null, 1)}\n`);
  saved++;
  return file;
}

const deadline = Date.now() + seconds * 1000;
let documents = 0;
let failures = 0;
let compared = 0;
let differences = 0;
const errorsSeen = new Set();
let lastReport = Date.now();
for (; Date.now() < deadline; documents++) {
  if (Date.now() - lastReport >= 10_000) {
    lastReport = Date.now();
    process.stderr.write(`fuzz: ${documents} documents, ${failures} failures${args.conform ? `, ${differences} of ${compared} block lists differ from remark's` : ''}\n`);
  }
  const text = documentText();
  const options = drawOptions();
  if (args.conform && documents % 3 === 0) {
    compared++;
    try {
      if (blocksDiffer(text)) {
        differences++;
        if (differences <= keep) save('blocks', documents, { text, minimized: minimized(text) });
      }
    } catch (error) {
      failures++;
      console.log(`blocks threw: ${save('blocks-threw', documents, { text, error: String(error?.stack ?? error) })}`);
    }
  }
  let records;
  try {
    records = chunkDocument(text, options).chunks;
  } catch (error) {
    if (error instanceof ChunkOptionsError) continue;
    failures++;
    // One file per distinct message: a fault found once is usually found a thousand times.
    const key = String(error?.message ?? error).slice(0, 80);
    if (!errorsSeen.has(key)) {
      errorsSeen.add(key);
      console.log(`threw: ${String(error?.message ?? error).slice(0, 200)}\n  ${save('threw', documents, { text, options, error: String(error?.stack ?? error) })}`);
    }
    continue;
  }
  if (documents % 4 === 0) {
    const windowChars = pick([32, 128, 512]);
    try {
      const streamed = [...chunkDocumentStream(text, options, { windowChars }).chunks];
      if (JSON.stringify(streamed) !== JSON.stringify(records)) {
        failures++;
        console.log(`stream differs: ${save('stream', documents, { text, options, windowChars })}`);
      }
    } catch (error) {
      failures++;
      console.log(`stream threw: ${save('stream-threw', documents, { text, options, windowChars, error: String(error?.stack ?? error) })}`);
    }
  }
}
console.log(
  `fuzz seed ${seed}: ${documents} documents in ${seconds} s, ${failures} failures${args.conform ? `, ${differences} of ${compared} block lists differ from remark's` : ''}${saved ? `; ${saved} saved in ${out}` : ''}`,
);
process.exit(failures > 0 ? 1 : 0);
