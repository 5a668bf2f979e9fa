/** The dialect of a name. */
import type { SandboxDialect } from '../options.js';
import { DECISIONS } from './decisions.js';
import { DOCUMENT } from './document/index.js';
import type { Dialect } from './types.js';

export type { Dialect } from './types.js';

export const DIALECT_IMPLEMENTATIONS: Readonly<Record<SandboxDialect, Dialect>> = { decisions: DECISIONS, document: DOCUMENT };

export function dialectNamed(name: SandboxDialect): Dialect {
  return DIALECT_IMPLEMENTATIONS[name];
}
