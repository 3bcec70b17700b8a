#!/usr/bin/env node
// What one surviving block object costs on this machine, apart from any chunking: the measure
// behind issue 15's remaining per-MB cells (tiny headings, setext headings, lazy quotes), where
// the document is 175,000 blocks a megabyte and each block lives until the records are made.
//
//   node bench/object-cost.mjs [BLOCKS=175000] [ROUNDS=30]
//
// Each round makes BLOCKS heading-like records and keeps them until the next round (as a pass
// keeps its blocks), in four layouts: the seven-field object fast-blocks makes today (an object
// literal, and the same fields through a class), a four-field object, and one Int32Array of six
// columns (what a columnar block list would hold). Prints CPU ms per round (user + system, the
// collector's threads included) and per block. Node 20 has no pointer compression, so a
// seven-field object is 80 bytes; the young generation copies each survivor once or twice, and
// on this VM memory touched afresh also costs a host fault (see bench/SCALING.md).
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

let kept = null;
for (const [name, make] of Object.entries(LAYOUTS)) {
  kept = null;
  make(); // warm-up: compiled code, not the first heap growth
  const before = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) kept = make();
  const used = process.cpuUsage(before);
  const ms = (used.user + used.system) / 1000 / ROUNDS;
  console.log(`${name.padEnd(22)} ${ms.toFixed(1).padStart(7)} CPU ms per round  ${((ms * 1e6) / BLOCKS).toFixed(0).padStart(5)} ns per block`);
}
if (kept === null) process.exit(1);
