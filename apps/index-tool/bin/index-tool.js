#!/usr/bin/env node
// The bundle is built by `npm ci` (root `prepare`) or `node tools/build.mjs apps/index-tool`.
import { exitOnStdoutError, main } from '../dist/main.js';

// A failed write to stdout (a full disk) is one line naming it, not a stack trace.
exitOnStdoutError('index-tool');

process.exitCode = await main(process.argv.slice(2));
