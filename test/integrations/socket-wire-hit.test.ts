import { describe, expect, it } from 'vitest';
import { fromWireHit, isWireHit } from '../../src/integrations/socket-protocol.js';

const HIT = { name: 'deploy', source: 'skills' as const, score: 0.9, path: '/s/deploy/SKILL.md', description: 'Deploy to staging' };

describe('a hit from a server the client did not write', () => {
  it('is taken with a well-formed host rule and companion mark, and keeps the rule', () => {
    const hit = { ...HIT, companion: true as const, invocation: { model: false, user: true, reasons: ['disable-model-invocation'] } };
    expect(isWireHit(hit)).toBe(true);
    expect(fromWireHit(hit).skill.invocation).toEqual(hit.invocation);
  });

  it.each([
    ['a rule that is not an object', { invocation: 'closed' }],
    ['a rule whose model flag is not a boolean', { invocation: { model: 'no', user: true, reasons: [] } }],
    ['a rule without reasons', { invocation: { model: false, user: true } }],
    ['a rule with a reason that is not text', { invocation: { model: false, user: true, reasons: [{}] } }],
    ['a companion mark other than true', { companion: 'yes' }],
    ['a companion mark of false', { companion: false }],
  ])('is refused with %s', (_, extra) => {
    expect(isWireHit({ ...HIT, ...extra })).toBe(false);
  });
});
