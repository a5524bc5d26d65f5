import { describe, expect, it } from 'vitest';
import { stringOfCodeUnits } from '../../src/util/code-units.js';

const unitsOf = (text: string) => Uint16Array.from({ length: text.length }, (_, i) => text.charCodeAt(i));

describe('stringOfCodeUnits', () => {
  it('gives back the string whose code units it is given, surrogate pairs and long runs included', () => {
    for (const text of ['', 'deploy', 'déploiement 部署 𝒳𝒴', 'ab'.repeat(5000), `${'x'.repeat(4095)}𝒳${'y'.repeat(9000)}`]) {
      expect(stringOfCodeUnits(unitsOf(text))).toBe(text);
    }
  });
});
