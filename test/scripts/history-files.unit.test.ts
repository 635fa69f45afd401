import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { writeHistoryOnce } from '../../scripts/lib/history-files.ts';

describe('npm run histories:capture (scripts/lib/history-files.ts)', () => {
  let dir: URL;
  beforeEach(async () => {
    dir = pathToFileURL(`${await mkdtemp(path.join(tmpdir(), 'rally-histories-'))}/`);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes a history that is not there yet', async () => {
    const { outcome, file } = await writeHistoryOnce(dir, 'petitionLifecycle-a', '{"events":[1]}');
    expect(outcome).to.equal('written');
    expect(await readFile(file, 'utf8')).to.equal('{"events":[1]}\n');
  });

  it('refuses to overwrite an existing history and leaves it byte for byte', async () => {
    await writeHistoryOnce(dir, 'petitionLifecycle-a', '{"events":["old version"]}');
    const { outcome, file } = await writeHistoryOnce(dir, 'petitionLifecycle-a', '{"events":["new version"]}');
    expect(outcome).to.equal('exists');
    expect(await readFile(file, 'utf8')).to.equal('{"events":["old version"]}\n');
  });
});
