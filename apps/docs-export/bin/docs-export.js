#!/usr/bin/env node
// The bundle is built by `npm ci` (root `prepare`) or `node tools/build.mjs apps/docs-export`.
import { main } from '../dist/main.js';

process.exitCode = await main(process.argv.slice(2));
