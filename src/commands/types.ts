import type { Command } from 'commander';
import type { Factory } from '../core/run/factory.js';

/**
 * A noun's registration: adds its command(s) to the root program. Registration files
 * import only commander and light helpers; each verb's action loads its implementation
 * with `await import()` so `--help` and `--version` stay fast.
 */
export type RegisterCommand = (program: Command, f: Factory) => void;
