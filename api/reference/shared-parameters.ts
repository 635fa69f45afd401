// Parameters that several operations take in exactly the same form (a page's cursor and size, the
// petition id of its sub-resources) become `components/parameters`, so each is written once.

type Parameter = { name: string; in: string; description?: string };
type Operation = { parameters?: (Parameter | { $ref: string })[] };

const pascal = (words: string) =>
  words.replace(/(^|[\s_-])([a-z])/gi, (_match, _separator, letter: string) => letter.toUpperCase()).replace(/[^A-Za-z0-9]/g, '');

/** The component name of a parameter: `PetitionId` for the path id of a petition, `Cursor` for ?cursor=. */
function baseName(parameter: Parameter): string {
  const resource = parameter.name === 'id' ? /^The (.+)'s id\.$/.exec(parameter.description ?? '')?.[1] : undefined;
  return resource ? `${pascal(resource)}Id` : pascal(parameter.name);
}

/** Moves every parameter used by two operations or more into the returned components, leaving references. */
export function shareParameters(operations: Operation[], initial: Record<string, object>): Record<string, object> {
  const uses = new Map<string, number>();
  for (const operation of operations)
    for (const parameter of operation.parameters ?? []) uses.set(JSON.stringify(parameter), (uses.get(JSON.stringify(parameter)) ?? 0) + 1);
  const components: Record<string, object> = { ...initial };
  const names = new Map<string, string>();
  for (const [text, count] of uses) {
    const parameter = JSON.parse(text) as Parameter;
    if (count < 2 || '$ref' in parameter) continue;
    let name = baseName(parameter);
    for (let n = 2; name in components; n++) name = `${baseName(parameter)}${n}`;
    components[name] = parameter;
    names.set(text, name);
  }
  for (const operation of operations) {
    operation.parameters = operation.parameters?.map((parameter) => {
      const name = names.get(JSON.stringify(parameter));
      return name ? { $ref: `#/components/parameters/${name}` } : parameter;
    });
  }
  return Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
}
