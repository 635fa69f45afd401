#!/usr/bin/env node
// The package's `bin` (`npx rally <command>`). Plain JavaScript so that it starts on any Node.js;
// it launches bin/rally-cli.ts, found relative to the package root rather than the caller's cwd.
import path from 'node:path';
import { packageRoot, runTypeScriptEntry } from '../scripts/lib/node-launcher.mjs';

await runTypeScriptEntry(path.join(packageRoot, 'bin', 'rally-cli.ts'), process.argv.slice(2));
