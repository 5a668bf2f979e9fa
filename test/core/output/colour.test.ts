/**
 * Colour for tables and records: chalk's own once loaded, and without it a stand-in that
 * does exactly what chalk does at level 0.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chalkAt, loadColour } from '../../../src/core/output/colour.js';

const STYLES = [
  'bold',
  'dim',
  'italic',
  'underline',
  'red',
  'green',
  'yellow',
  'cyan',
  'gray',
  'bgRed',
  'inverse',
  'reset',
  'visible',
] as const;

type Step = { style: (typeof STYLES)[number] } | { model: 'hex' | 'rgb' | 'ansi256' };
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constantFrom(...STYLES).map((style) => ({ style })),
  fc.constantFrom('hex' as const, 'rgb' as const, 'ansi256' as const).map((model) => ({ model })),
);

function chain(c: ChalkInstance, steps: Step[], visible: boolean): (...args: unknown[]) => string {
  let s = c;
  for (const st of steps) {
    if ('style' in st) s = s[st.style];
    else if (st.model === 'hex') s = s.hex('#ff0000');
    else if (st.model === 'rgb') s = s.rgb(1, 2, 3);
    else s = s.ansi256(9);
  }
  return (visible ? s : s.visible) as unknown as (...args: unknown[]) => string;
}

describe('colour', () => {
  it('without colour behaves as chalk at level 0, for any chain of styles and any arguments', () => {
    const reference = new Chalk({ level: 0 });
    const plain = chalkAt(false);
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 4 }),
        fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(undefined), fc.constant(null)), { maxLength: 3 }),
        fc.boolean(),
        (steps, args, visible) => {
          expect(chain(plain, steps, visible)(...args)).toBe(chain(reference, steps, visible)(...args));
        },
      ),
      { numRuns: 1000 },
    );
    expect(plain.level).toBe(0);
    expect(plain(undefined)).toBe(reference(undefined));
  });

  it("is chalk's own at level 1 once loaded", async () => {
    await loadColour();
    const c = chalkAt(true);
    expect(c.level).toBe(1);
    expect(c.bold('x')).toBe('\u001b[1mx\u001b[22m');
    expect(chalkAt(false).bold('x')).toBe('x');
  });
});
