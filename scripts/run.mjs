#!/usr/bin/env node
// Entry point of every `npm run` script: `node scripts/run.mjs <script.ts> [args…]`.
// Plain JavaScript so that it starts on any Node.js (20 included); see lib/node-launcher.mjs for
// what it does before handing over to the TypeScript script.
import { runTypeScriptEntry } from './lib/node-launcher.mjs';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: node scripts/run.mjs <script.ts> [args…]\n');
  process.exit(64);
}
await runTypeScriptEntry(entry, args);
