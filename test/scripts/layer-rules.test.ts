// The import directions of scripts/eslint.config.js are enforced: a file that breaks one fails the
// lint step of `npm test`. Proven here by linting probe sources as if they stood where they would break
// them; nothing is written into the tree, where the lint run beside the tests would see it.
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// The import rules need no type information: one linter without the TypeScript project service, which
// would build a program of the whole tree for every probe, running only the import rules.
let linter: ESLint | undefined;
const importLinter = () =>
  (linter ??= new ESLint({
    cwd: ROOT,
    overrideConfigFile: `${ROOT}scripts/eslint.config.js`,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports' || ruleId === '@typescript-eslint/no-restricted-imports',
  }));

async function lintThrowaway(folder: string, source: string): Promise<string[]> {
  const [result] = await importLinter().lintText(source, { filePath: `${ROOT}${folder}/layer-probe.ts` });
  return (result?.messages ?? []).filter((message) => message.severity === 2).map((message) => `${message.ruleId}: ${message.message}`);
}

type Probe = { folder: string; source: string };
const lintThrowaways = (probes: Probe[]) => Promise.all(probes.map(({ folder, source }) => lintThrowaway(folder, source)));

describe('import rules (scripts/eslint.config.js)', function () {
  this.timeout(120_000);

  it('reports core/ importing from api/', async () => {
    const errors = await lintThrowaway('core', "import { sendData } from '../api/http/context.ts';\nexport const probe = sendData;\n");
    expect(errors.join('\n')).to.include('no-restricted-imports').and.include('core/ is the domain');
  });

  it('reports core/ importing koa', async () => {
    const errors = await lintThrowaway('core', "import Koa from 'koa';\nexport const probe = Koa;\n");
    expect(errors.join('\n')).to.include('no-restricted-imports');
  });

  it('reports workflows/ importing a Node built-in', async () => {
    const errors = await lintThrowaway('workflows', "import { readFileSync } from 'node:fs';\nexport const probe = readFileSync;\n");
    expect(errors.join('\n')).to.include('no-restricted-imports').and.include('deterministic sandbox');
  });

  it('reports core/ importing workflows/, even for a type', async () => {
    const value = await lintThrowaway(
      'core',
      "import { petitionWorkflowId } from '../workflows/petition-lifecycle.ts';\nexport const probe = petitionWorkflowId;\n",
    );
    expect(value.join('\n')).to.include('no-restricted-imports').and.include('core/ is the domain');
    const type = await lintThrowaway(
      'core',
      "import type { InvalidationInput } from '../workflows/signature-invalidation.ts';\nexport type Probe = InvalidationInput;\n",
    );
    expect(type.join('\n')).to.include('no-restricted-imports').and.include('core/ is the domain');
  });

  it('reports core/ importing the Temporal client or its client-side helpers', async () => {
    const client = await lintThrowaway('core', "import type { Client } from '@temporalio/client';\nexport type Probe = Client;\n");
    expect(client.join('\n')).to.include('no-restricted-imports').and.include('Only orchestration/ holds the Temporal client');
    const common = await lintThrowaway(
      'core',
      "import type { UpdateDefinition } from '@temporalio/common';\nexport type Probe = UpdateDefinition<unknown, []>;\n",
    );
    expect(common.join('\n')).to.include('no-restricted-imports').and.include('no Temporal');
  });

  it('reports core/ importing orchestration/', async () => {
    const errors = await lintThrowaway('core', "import { orUnavailable } from '../orchestration/unavailable.ts';\nexport const probe = orUnavailable;\n");
    expect(errors.join('\n')).to.include('no-restricted-imports').and.include('core/ is the domain');
  });

  it('reports api/ importing workflows/ or the Temporal client', async () => {
    const workflows = await lintThrowaway(
      'api',
      "import { petitionWorkflowId } from '../workflows/petition-lifecycle.ts';\nexport const probe = petitionWorkflowId;\n",
    );
    expect(workflows.join('\n')).to.include('no-restricted-imports').and.include('api/ is HTTP only');
    const client = await lintThrowaway('api', "import type { Client } from '@temporalio/client';\nexport type Probe = Client;\n");
    expect(client.join('\n')).to.include('no-restricted-imports').and.include('Only orchestration/ holds the Temporal client');
    const http = await lintThrowaway('api/http', "import type { Connection } from '@temporalio/client';\nexport type Probe = Connection;\n");
    expect(http.join('\n')).to.include('no-restricted-imports').and.include('Only orchestration/ holds the Temporal client');
  });

  it('reports the worker, activities and scripts importing the Temporal client: they call orchestration/', async () => {
    const probes = [
      {
        folder: 'worker',
        source: "import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';\nexport const probe = WorkflowExecutionAlreadyStartedError;\n",
      },
      { folder: 'activities', source: "import type { Client } from '@temporalio/client';\nexport type Probe = Client;\n" },
      { folder: 'scripts', source: "import { Client } from '@temporalio/client';\nexport const probe = Client;\n" },
    ];
    const results = await lintThrowaways(probes);
    probes.forEach(({ folder }, i) => {
      expect(results[i]!.join('\n'), folder).to.include('no-restricted-imports').and.include('Only orchestration/ holds the Temporal client');
    });
  });

  it('keeps site/ on the shared HTTP plumbing of api/http/, and api/ out of site/', async () => {
    const [siteReachingARoute, siteOnPlumbing, apiReachingSite, plumbingReachingSite, coreReachingSite] = await lintThrowaways([
      { folder: 'site', source: "import { createPetitionRoutes } from '../api/petitions/routes.ts';\nexport const probe = createPetitionRoutes;\n" },
      { folder: 'site', source: "import { defineRoute } from '../api/http/route.ts';\nexport const probe = defineRoute;\n" },
      { folder: 'api/users', source: "import { sendBrowserPage } from '../../site/browser-pages.ts';\nexport const probe = sendBrowserPage;\n" },
      { folder: 'api/http', source: "import type { SignPanelState } from '../../site/sign/sign-panel.ts';\nexport type Probe = SignPanelState;\n" },
      { folder: 'core', source: "import { sendBrowserPage } from '../site/browser-pages.ts';\nexport const probe = sendBrowserPage;\n" },
    ]);
    expect(siteReachingARoute!.join('\n')).to.include('no-restricted-imports').and.include('site/ uses only the shared HTTP plumbing');
    expect(siteOnPlumbing).to.deep.equal([]);
    expect(apiReachingSite!.join('\n')).to.include('no-restricted-imports').and.include('api/ never imports site/');
    expect(plumbingReachingSite!.join('\n')).to.include('no-restricted-imports').and.include('api/ never imports site/');
    expect(coreReachingSite!.join('\n')).to.include('no-restricted-imports').and.include('core/ is the domain');
  });

  it('accepts orchestration/ importing the Temporal client', async () => {
    expect(await lintThrowaway('orchestration', "import type { Client } from '@temporalio/client';\nexport type Probe = Client;\n")).to.deep.equal([]);
  });

  it('reports orchestration/ importing the API', async () => {
    const errors = await lintThrowaway('orchestration', "import { sendData } from '../api/http/context.ts';\nexport const probe = sendData;\n");
    expect(errors.join('\n')).to.include('no-restricted-imports').and.include('orchestration/ implements the ports');
  });

  it('accepts api/ reaching Temporal through orchestration/, and workflows/ importing a type of core/', async () => {
    expect(await lintThrowaway('api', "import type { Orchestration } from '../orchestration/index.ts';\nexport type Probe = Orchestration;\n")).to.deep.equal(
      [],
    );
    expect(
      await lintThrowaway('workflows', "import type { TransitionRequest } from '../core/petitions/lifecycle.ts';\nexport type Probe = TransitionRequest;\n"),
    ).to.deep.equal([]);
  });

  it('reports workflows/ importing a value of core/ other than the vocabulary', async () => {
    const errors = await lintThrowaway('workflows', "import { ensure } from '../core/errors/domain-error.ts';\nexport const probe = ensure;\n");
    expect(errors.join('\n')).to.include('no-restricted-imports').and.include('Workflows reach nothing with I/O');
  });

  it('reports platform/ and db/ importing core/', async () => {
    for (const folder of ['platform', 'db']) {
      const errors = await lintThrowaway(folder, "import { DomainError } from '../core/errors/domain-error.ts';\nexport const probe = DomainError;\n");
      expect(errors.join('\n'), folder).to.include('no-restricted-imports').and.include('the ground floor');
    }
  });

  it('reports zod in a route or a setting (their schemas are TypeBox), and accepts it for rows in core/', async () => {
    const source = "import { z } from 'zod';\nexport const Probe = z.object({ id: z.string() });\n";
    for (const folder of ['api/petitions', 'platform/config']) {
      expect((await lintThrowaway(folder, source)).join('\n'), folder)
        .to.include('no-restricted-imports')
        .and.include('zod is for database rows');
    }
    expect(await lintThrowaway('core/petitions', source)).to.deep.equal([]);
  });

  it('accepts core/ importing the ground floor', async () => {
    expect(await lintThrowaway('core', "import { sql } from '../db/sql.ts';\nexport const probe = sql;\n")).to.deep.equal([]);
  });
});
