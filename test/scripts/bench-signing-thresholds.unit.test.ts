// Issue 44: the bench signs with Rally's default network block and email domain thresholds, which flag
// and never refuse, so its signing rows measure signing as a crowd meets it, not with the thresholds
// lifted. Only the hard ceilings are off there: all its load comes from one address and one domain.
import { expect } from 'chai';
import { readSource, sourceFiles } from '../support/source-scan.ts';

const THRESHOLDS = ['RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR', 'RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR'];

describe('the bench signs with the default block and domain thresholds (scripts/bench)', () => {
  it('sets neither threshold in any bench file', () => {
    const setting = sourceFiles('scripts/bench').flatMap((file) =>
      THRESHOLDS.filter((name) => readSource(file).includes(name)).map((name) => `${file}: ${name}`),
    );
    expect(setting).to.deep.equal([]);
  });

  it('turns the hard ceilings off in the environment every bench API starts with', () => {
    const environment = readSource('scripts/bench/environment.ts');
    expect(environment).to.match(/RALLY_SIGN_CEILING_PER_BLOCK_PER_HOUR: '0'/);
    expect(environment).to.match(/RALLY_SIGN_CEILING_PER_DOMAIN_PER_HOUR: '0'/);
  });
});
