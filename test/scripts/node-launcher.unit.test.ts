// The launcher installs dependencies only when the installed tree differs from package-lock.json: a
// fresh checkout (a clone, a git worktree) makes the lock file newer without changing what it asks for.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { installedMatchesLock } from '../../scripts/lib/node-launcher.mjs';

const lockWith = (packages: Record<string, { version: string; optional?: boolean }>) =>
  JSON.stringify({ lockfileVersion: 3, packages: { '': {}, ...packages } });

function files(wanted: string, installed: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'rally-launcher-'));
  writeFileSync(path.join(dir, 'package-lock.json'), wanted);
  writeFileSync(path.join(dir, 'installed.json'), installed);
  return [path.join(dir, 'package-lock.json'), path.join(dir, 'installed.json')] as const;
}

describe('the launcher’s install check', () => {
  it('needs no install when every locked package is installed at its version', () => {
    const lock = lockWith({ 'node_modules/koa': { version: '3.3.0' } });
    expect(installedMatchesLock(...files(lock, lock))).to.equal(true);
  });

  it('installs when a package is missing or at another version', () => {
    const wanted = lockWith({ 'node_modules/koa': { version: '3.3.0' }, 'node_modules/ajv': { version: '8.20.0' } });
    expect(installedMatchesLock(...files(wanted, lockWith({ 'node_modules/koa': { version: '3.3.0' } })))).to.equal(false);
    expect(installedMatchesLock(...files(wanted, lockWith({ 'node_modules/koa': { version: '3.2.0' }, 'node_modules/ajv': { version: '8.20.0' } })))).to.equal(
      false,
    );
  });

  it('accepts an optional package for another platform that was not installed', () => {
    const wanted = lockWith({ 'node_modules/koa': { version: '3.3.0' }, 'node_modules/@esbuild/darwin-arm64': { version: '0.25.0', optional: true } });
    expect(installedMatchesLock(...files(wanted, lockWith({ 'node_modules/koa': { version: '3.3.0' } })))).to.equal(true);
  });

  it('installs when either file cannot be read as JSON', () => {
    expect(installedMatchesLock(...files('{', lockWith({})))).to.equal(false);
  });
});
