import { cruise, type IModule } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

/**
 * The modules the SPA evaluates before it can paint (the entry and what it imports statically,
 * dynamic imports and type-only ones left out), resolved from `src/client/main.tsx`.
 */
async function firstPaintModules(): Promise<Set<string>> {
  const result = await cruise(['src/client/main.tsx'], {
    tsConfig: { fileName: 'tsconfig.app.json' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
  });
  if (typeof result.output === 'string') throw new Error('dependency-cruiser gave no modules');
  const modules = new Map<string, IModule>(
    result.output.modules.map((module) => [module.source, module]),
  );
  const reached = new Set<string>(['src/client/main.tsx']);
  const queue = ['src/client/main.tsx'];
  for (let source = queue.pop(); source !== undefined; source = queue.pop())
    for (const dependency of modules.get(source)?.dependencies ?? []) {
      const typeOnly = dependency.dependencyTypes.some((type) => type.startsWith('type-'));
      if (dependency.dynamic || typeOnly || reached.has(dependency.resolved)) continue;
      reached.add(dependency.resolved);
      queue.push(dependency.resolved);
    }
  return reached;
}

describe('the sign-in page before its first paint', () => {
  it('loads no classic zod: what it reads first is parsed with zod/mini (docs/architecture.md, Budgets)', async () => {
    const reached = [...(await firstPaintModules())];
    // The page is among them, so the walk is real.
    expect(reached).toContain('src/client/app/routes/sign-in.tsx');
    // `zod` itself (the SPA aliases it to src/client/zod-jitless.ts) is the classic one.
    const classicZod = reached.filter((source) => /(^|\/)zod\/index\.c?js$/.test(source));
    expect(classicZod).toEqual([]);
    expect(reached).toContain('src/domain/sign-in-mode.ts');
  });
});
