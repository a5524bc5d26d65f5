/**
 * "Not for" boundaries through the engine (USE-lite, exact scan): a request on a skill's boundary
 * ranks the alternative it names above it, and a request for what the skill is for does not move.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createUseLiteEmbedder } from '../../src/embed/use-lite.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import type { Skill } from '../../src/types.js';
import { makeSkill } from './fixtures.js';

const CATALOG: readonly Skill[] = [
  makeSkill({
    name: 'qutip',
    description:
      'Quantum physics simulation of open quantum systems, master equations and decoherence. NOT for circuit-based quantum computing on hardware—use qiskit for quantum circuits.',
  }),
  makeSkill({ name: 'qiskit', description: 'IBM quantum computing SDK: build, transpile and run quantum programs.' }),
  makeSkill({ name: 'pdf', description: 'Extract text and tables from PDF files, merge and split documents.' }),
  makeSkill({ name: 'docker-compose', description: 'Define and run multi-container applications with Docker Compose.' }),
];

const engines = new Map<string, SkillSearchEngine>();
beforeAll(async () => {
  const embedder = createUseLiteEmbedder();
  for (const [name, boundaries] of [
    ['with', {}],
    ['without', { boundaries: { penalty: 0, insteadBoost: 0 } }],
  ] as const) {
    const engine = await SkillSearchEngine.open({ embedder, ann: 'exact', ...boundaries });
    await engine.sync(CATALOG);
    engines.set(name, engine);
  }
});

async function first(engine: string, query: string): Promise<string | undefined> {
  return (await engines.get(engine)!.search(query, { mode: 'hybrid', abstain: false }))[0]?.skill.name;
}

describe('boundaries in hybrid ranking', () => {
  it('puts the named alternative first for a request on the boundary', async () => {
    const query = 'run my quantum circuit on real hardware';
    expect(await first('without', query)).toBe('qutip');
    expect(await first('with', query)).toBe('qiskit');
  });

  it('leaves a request for what the skill is for where it was', async () => {
    const query = 'simulate decoherence with a master equation';
    expect(await first('without', query)).toBe('qutip');
    expect(await first('with', query)).toBe('qutip');
  });
});
