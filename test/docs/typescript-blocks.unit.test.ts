// Every TypeScript block of the repository's Markdown (```ts or ```typescript: the guides, the SDK's
// README) is type-checked against the SDK's source, as a reader's `node file.ts` project would, so an
// example that stops compiling fails here. A block may say before it what it takes from its page (below).
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { markdownFiles, parse, readDocument, ROOT } from '../support/markdown.ts';

// An HTML comment right above a block, invisible once rendered:
//   <!-- typecheck: continues -->        the block goes on from the page's previous TypeScript block
//   <!-- typecheck: given <declarations> -->   what a fragment takes from the text around it
const ANNOTATION = /^<!--\s*typecheck:\s*(continues|given)\b\s*([\s\S]*?)\s*-->$/;
const TYPESCRIPT = /^(ts|typescript)(\s|$)/;

type Line = { file: string; line: number } | undefined;
type Block = { file: string; line: number; code: string; continues: boolean; given: string };
type Source = { name: string; text: string; origins: Line[] };

/** The TypeScript blocks of one document, each with the annotation written above it. */
function blocksOf(file: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  return parse(markdown)
    .blocks.filter(({ info }) => TYPESCRIPT.test(info))
    .map(({ code, line }) => {
      let above = line - 2;
      while (above >= 0 && lines[above]!.trim() === '') above--;
      const annotation = ANNOTATION.exec(lines[above]?.trim() ?? '');
      return { file, line: line + 1, code, continues: annotation?.[1] === 'continues', given: annotation?.[1] === 'given' ? annotation[2]! : '' };
    });
}

const NAMED_IMPORT = /^import (type )?\{([^}]*)\} from '([^']+)';$/;

/** One module of a block and the blocks it continues: imports merged on top, each later block in a scope of its own. */
function compose(chain: Block[], index: number): Source {
  const imports = new Map<string, Set<string>>();
  const text: string[] = [];
  const origins: Line[] = [];
  const emit = (content: string, origin?: Line) => {
    text.push(content);
    origins.push(origin);
  };
  const bodies: { block: Block; lines: { content: string; line: number }[] }[] = chain.map((block) => ({ block, lines: [] }));
  for (const { block, lines } of bodies) {
    block.code.split('\n').forEach((content, offset) => {
      const named = NAMED_IMPORT.exec(content);
      if (!named) return lines.push({ content, line: block.line + offset });
      const names = imports.get(named[3]!) ?? new Set<string>();
      for (const name of named[2]!
        .split(',')
        .map((each) => each.trim())
        .filter(Boolean))
        names.add(named[1] ? `type ${name}` : name);
      imports.set(named[3]!, names);
    });
  }
  for (const [module, names] of imports) emit(`import { ${[...names].join(', ')} } from '${module}';`);
  for (const { block } of bodies) if (block.given) emit(block.given, { file: block.file, line: block.line - 1 });
  bodies.forEach(({ block, lines }, position) => {
    if (position > 0) emit('{');
    for (const { content, line } of lines) emit(content, { file: block.file, line });
    if (position > 0) emit('}');
  });
  emit('export {};');
  const last = chain.at(-1)!;
  return { name: path.join(ROOT, 'docs', `.typecheck-${index}-${path.basename(last.file, '.md')}.mts`), text: text.join('\n'), origins };
}

/** The modules to check: one per block, made of it and the blocks it continues. */
async function sources(): Promise<Source[]> {
  const result: Source[] = [];
  for (const file of await markdownFiles()) {
    const blocks = blocksOf(file, await readDocument(file));
    let chain: Block[] = [];
    for (const block of blocks) {
      chain = block.continues ? [...chain, block] : [block];
      result.push(compose(chain, result.length));
    }
  }
  return result;
}

// As a reader's project runs them with `node file.ts` (Node 24 strips the types): ES modules, strict,
// only erasable syntax; `@rally/sdk` is the SDK's source.
const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2024,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2024.d.ts'],
  types: ['node'],
  typeRoots: [path.join(ROOT, 'node_modules/@types')],
  strict: true,
  noUncheckedIndexedAccess: true,
  erasableSyntaxOnly: true,
  verbatimModuleSyntax: true,
  allowImportingTsExtensions: true,
  skipLibCheck: true,
  noEmit: true,
  paths: { '@rally/sdk': [path.join(ROOT, 'clients/typescript/src/index.ts')] },
};

/** Every error of every module, as `file:line: message` of the Markdown it came from. */
function typeErrors(modules: Source[]): string[] {
  const byName = new Map(modules.map((module) => [module.name, module]));
  const host = ts.createCompilerHost(OPTIONS);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => byName.has(name) || fileExists.call(host, name);
  host.readFile = (name) => byName.get(name)?.text ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const module = byName.get(name);
    return module ? ts.createSourceFile(name, module.text, language) : getSourceFile.call(host, name, language, ...rest);
  };
  const program = ts.createProgram([...byName.keys()], OPTIONS, host);
  const errors = new Set<string>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const module = diagnostic.file && byName.get(diagnostic.file.fileName);
    if (!module || diagnostic.start === undefined) {
      errors.add(`${diagnostic.file?.fileName ?? 'options'}: ${message}`);
      continue;
    }
    const origin = module.origins[diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start).line];
    errors.add(origin ? `${origin.file}:${origin.line}: ${message}` : `${module.name} (composed): ${message}`);
  }
  return [...errors];
}

describe('TypeScript blocks of the documentation', function () {
  this.timeout(120_000);

  it('are found in the guides and the SDK README', async () => {
    const files = new Set((await sources()).map(({ origins }) => origins.find(Boolean)?.file));
    expect([...files]).to.include.members([
      'docs/guides/sdk.md',
      'docs/guides/calling-the-api.md',
      'docs/guides/receiving-webhooks.md',
      'clients/typescript/README.md',
    ]);
  });

  it('type-check against the SDK', async () => {
    expect(typeErrors(await sources())).to.deep.equal([]);
  });
});
