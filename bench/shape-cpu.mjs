#!/usr/bin/env node
// CPU time (user + system) of chunkDocument per pass on bench/scaling.mjs's shapes, in this
// one process: steadier than wall time when the machine is shared, and a quick way to compare
// two builds (run it once per build, interleaved). Prints the least of PASSES passes.
//
//   node --expose-gc bench/shape-cpu.mjs SHAPE[,SHAPE…] [BYTES=1e6] [PASSES=8]
//   CHUNKYARD_BENCH_CHUNKING=build.js node --expose-gc bench/shape-cpu.mjs …   times that build
//
// The CPU time counts the collector's helper threads too, so it reads higher than
// bench/scaling.mjs's wall time; compare it only with itself.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SHAPES } from './lib/shapes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.env.CHUNKYARD_BENCH_CHUNKING ? resolve(process.env.CHUNKYARD_BENCH_CHUNKING) : join(root, 'packages/chunking/dist/index.js');

const USAGE = `usage: node --expose-gc bench/shape-cpu.mjs SHAPE[,SHAPE…] [BYTES=1e6] [PASSES=8]\nshapes: ${Object.keys(SHAPES).join(', ')}`;
const [shapesArg, bytesArg = '1e6', passesArg = '8'] = process.argv.slice(2);
if (!shapesArg || shapesArg === '--help' || shapesArg === '-h') {
  console.log(USAGE);
  process.exit(shapesArg ? 0 : 2);
}
const bytes = Number(bytesArg);
const passes = Number(passesArg);
const shapes = shapesArg.split(',');
const unknown = shapes.filter((s) => !SHAPES[s]);
if (unknown.length || !(bytes >= 1) || !Number.isInteger(passes) || passes < 1) {
  console.error(`${unknown.length ? `unknown shape ${unknown.join(', ')}` : `BYTES must be at least 1 and PASSES a whole number from 1`}\n${USAGE}`);
  process.exit(2);
}
const { chunkDocument } = await import(pathToFileURL(DIST).href);
for (const shape of shapes) {
  const text = SHAPES[shape](bytes);
  let best = Infinity;
  for (let i = 0; i < passes; i++) {
    globalThis.gc?.();
    const before = process.cpuUsage();
    chunkDocument(text, { docName: 'shape' });
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  console.log(`${shape.padEnd(18)} ${best.toFixed(1).padStart(8)} CPU ms per pass  ${(best / (bytes / 1e6)).toFixed(1)} ms per MB`);
}
