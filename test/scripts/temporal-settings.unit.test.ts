import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadTemporalSettings, TemporalSettingsError } from '../../scripts/lib/temporal-settings.ts';
import { ALL_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.ts';

const VALID = `namespace: default
taskQueue: rally
workflowRetention: 7d
devServer:
  ip: 127.0.0.1
  port: 7233
  uiPort: 8233
  dbFile: .data/temporal.sqlite
searchAttributes:
  RallyPetitionId: Keyword
`;

describe('temporal.yaml settings (scripts/lib/temporal-settings.ts)', () => {
  let folder: string;
  before(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'rally-temporal-settings-'));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  function refusal(yaml: string): string {
    const file = path.join(folder, 'temporal.yaml');
    writeFileSync(file, yaml);
    try {
      loadTemporalSettings(file);
    } catch (error) {
      expect(error).to.be.instanceOf(TemporalSettingsError);
      expect((error as Error).message, 'the error names the file').to.include(file);
      return (error as Error).message;
    }
    throw new Error('the settings were accepted');
  }

  it('reads the committed temporal.yaml, its retention in milliseconds', () => {
    const settings = loadTemporalSettings();
    expect(settings.namespace).to.equal('default');
    expect(settings.taskQueue).to.equal('rally');
    expect(settings.workflowRetentionMs).to.equal(7 * 24 * 3_600_000);
  });

  it('declares every search attribute the workflows set, with the type they set it as', () => {
    const declared = loadTemporalSettings().searchAttributes;
    for (const key of ALL_SEARCH_ATTRIBUTES) {
      const spelled = Object.entries(declared).find(([name]) => name === key.name)?.[1];
      expect(spelled?.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toUpperCase(), key.name).to.equal(key.type);
    }
  });

  it('refuses a dev-server port outside 1–65535, naming the field', () => {
    expect(refusal(VALID.replace('port: 7233', 'port: 70000'))).to.include('/devServer/port');
  });

  it('refuses a key it does not know (a misspelling would otherwise be ignored)', () => {
    expect(refusal(`${VALID}taskQeue: other\n`)).to.include('/taskQeue');
  });

  it('refuses a search attribute whose name is not an identifier or whose type Temporal lacks', () => {
    expect(refusal(VALID.replace('RallyPetitionId: Keyword', 'Rally-Petition: Keyword'))).to.include('/searchAttributes/Rally-Petition');
    expect(refusal(VALID.replace('RallyPetitionId: Keyword', 'RallyPetitionId: Uuid')))
      .to.include('/searchAttributes/RallyPetitionId')
      .and.include('Keyword, Text');
  });

  it('refuses a retention that is not a duration, naming it', () => {
    expect(refusal(VALID.replace('7d', 'a week'))).to.include('workflowRetention');
  });

  it('refuses a file that holds no settings at all', () => {
    expect(refusal('')).to.include('is not valid');
  });
});
