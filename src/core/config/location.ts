/**
 * Where the profiles file lives: `VOUCHERS_CONFIG_DIR`, else the platform's config folder
 * for `vouchers` (the same folders conf's env-paths picks: XDG on Linux, Preferences on
 * macOS, %APPDATA% on Windows). Both the fast reader and the conf-backed writer use this,
 * so they always agree on the file.
 */
import { join, resolve } from 'node:path';
import { ENV } from './types.js';

export const PROJECT_NAME = 'vouchers';
export const CONFIG_FILE_NAME = 'config.json';

export interface ConfigLocation {
  dir: string;
  path: string;
  /** Chosen by VOUCHERS_CONFIG_DIR (not the tool's own platform folder). */
  custom: boolean;
}

/**
 * The user's home folder, as os.homedir() finds it (HOME, or USERPROFILE on Windows, before
 * the account database) without loading node:os, about 0.2 ms of every command on Node 20.
 */
function homeFolder(): string {
  return (process.platform === 'win32' ? process.env.USERPROFILE : process.env.HOME) || process.getBuiltinModule('node:os').homedir();
}

export function platformConfigDir(env: Record<string, string | undefined>): string {
  const home = homeFolder();
  switch (process.platform) {
    case 'darwin':
      return join(home, 'Library', 'Preferences', PROJECT_NAME);
    case 'win32':
      return join(env.APPDATA || join(home, 'AppData', 'Roaming'), PROJECT_NAME, 'Config');
    default:
      return join(env.XDG_CONFIG_HOME || join(home, '.config'), PROJECT_NAME);
  }
}

export function configLocation(env: Record<string, string | undefined>): ConfigLocation {
  const custom = env[ENV.configDir];
  const dir = custom ? resolve(custom) : platformConfigDir(env);
  return { dir, path: join(dir, CONFIG_FILE_NAME), custom: Boolean(custom) };
}
