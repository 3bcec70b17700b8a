#!/usr/bin/env node
// What one surviving block object costs on this machine, apart from any chunking: the measure
// behind issue 15's remaining per-MB cells (tiny headings, setext headings, lazy quotes), where
// the document is 175,000 blocks a megabyte and each block lives until the records are made.
//
//   node --expose-gc bench/object-cost.mjs [BLOCKS=175000] [ROUNDS=30]
//
// Each round makes BLOCKS heading-like records and keeps them to its end while it makes four
// short-lived objects a block (as a pass keeps its blocks while its later stages allocate),
// after a full collection (as bench/shape-cpu.mjs runs each pass), in four layouts: the seven-field object fast-blocks makes today (an object
// literal, and the same fields through a class), a four-field object, and one Int32Array of six
// columns (what a columnar block list would hold). Prints the least and the median CPU ms of a
// round (user + system, the collector's threads included, the forced collection not) and the
// least per block. Node 20 has no pointer compression, so a
// seven-field object is 80 bytes; the young generation copies each survivor once or twice, and
// on this VM memory touched afresh also costs a host fault (see bench/SCALING.md).
//
// Read its rows as what the layouts cost in this loop, not in a pass: session 49 made a pass's
// heading blocks from a pool kept between documents (none made, none copied) and tiny headings
// took the same time as before (bench/SCALING.md, "Session 49"), so the ~60 ms gap here between
// objects and columns is not a pass's.
const [blocksArg = '175000', roundsArg = '30'] = process.argv.slice(2);
const BLOCKS = Number(blocksArg);
const ROUNDS = Number(roundsArg);
if (!Number.isInteger(BLOCKS) || BLOCKS < 1 || !Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error('usage: node bench/object-cost.mjs [BLOCKS=175000] [ROUNDS=30] (whole numbers from 1)');
  process.exit(2);
}
const texts = Array.from({ length: 100 }, (_, i) => `h${i}`);

class Heading7 {
  constructor(i) {
    this.type = 'heading';
    this.start = i * 6;
    this.end = i * 6 + 5;
    this.startLine = i;
    this.endLine = i;
    this.depth = 1;
    this.text = texts[i % 100];
  }
}
class Heading4 {
  constructor(i) {
    this.type = 'heading';
    this.start = i * 6;
    this.end = i * 6 + 5;
    this.text = texts[i % 100];
  }
}

const LAYOUTS = {
  'literal, 7 fields': () => {
    const a = new Array(BLOCKS);
    for (let i = 0; i < BLOCKS; i++) a[i] = { type: 'heading', start: i * 6, end: i * 6 + 5, startLine: i, endLine: i, depth: 1, text: texts[i % 100] };
    return a;
  },
  'class, 7 fields': () => {
    const a = new Array(BLOCKS);
    for (let i = 0; i < BLOCKS; i++) a[i] = new Heading7(i);
    return a;
  },
  'class, 4 fields': () => {
    const a = new Array(BLOCKS);
    for (let i = 0; i < BLOCKS; i++) a[i] = new Heading4(i);
    return a;
  },
  'Int32Array, 6 columns': () => {
    const a = new Int32Array(BLOCKS * 6);
    for (let i = 0, k = 0; i < BLOCKS; i++, k += 6) {
      a[k] = i * 6;
      a[k + 1] = i * 6 + 5;
      a[k + 2] = i;
      a[k + 3] = i;
      a[k + 4] = 1;
      a[k + 5] = i % 100;
    }
    return a;
  },
};

if (typeof globalThis.gc !== 'function') console.error('(run with node --expose-gc to start each round from a collected heap)');
let kept = 0;
/** Where the short-lived objects go: escaping, so the compiler cannot leave them unmade. */
const ring = new Array(1024).fill(null);
for (const [name, make] of Object.entries(LAYOUTS)) {
  make(); // warm-up: compiled code, not the first heap growth
  const times = [];
  for (let r = 0; r < ROUNDS; r++) {
    globalThis.gc?.();
    const before = process.cpuUsage();
    const blocks = make();
    // The rest of a pass allocates while the blocks live (a record, a slice, a piece per block):
    // short-lived objects that fill the young generation, so each scavenge copies the blocks.
    for (let i = 0; i < BLOCKS * 4; i++) ring[i & 1023] = { at: i, next: i + 1 };
    kept += blocks.length;
    const used = process.cpuUsage(before);
    times.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  const least = times[0];
  const median = times[Math.floor(times.length / 2)];
  console.log(`${name.padEnd(22)} ${least.toFixed(1).padStart(7)} ms least, ${median.toFixed(1).padStart(7)} ms median a round  ${((least * 1e6) / BLOCKS).toFixed(0).padStart(5)} ns per block`);
}
if (kept === 0) process.exit(1);
