#!/usr/bin/env node
// The bundle is built by `npm ci` (root `prepare`) or `node tools/build.mjs apps/docs-score`.
import { main } from '../dist/main.js';

// stdout on a full disk (`> out.txt`, or /dev/full) fails after main() handed the text over,
// as an 'error' event on process.stdout: unheard, an uncaught exception with a stack trace.
// A reader that left early (`| head`) is its choice, not a failure.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  const why = err.code === 'ENOSPC' ? 'no space left on the device (ENOSPC); free some space and run again' : `${err.message}`;
  process.stderr.write(`docs-score: cannot write to stdout: ${why}\n`);
  process.exit(1);
});

process.exitCode = await main(process.argv.slice(2));
