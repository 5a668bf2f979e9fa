/** Every top-level command, in the order `--help` lists them. One line a noun. */
import type { RegisterCommand } from './types.js';

export const COMMANDS: RegisterCommand[] = [
];
