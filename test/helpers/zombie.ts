/**
 * A zombie for the process checks (Linux): a process that has exited and is not reaped. A
 * shell starts `cat` in the background, reading a pipe from this process, and then becomes
 * `sleep`, which never reaps anything. Once the shell is `sleep`, the pipe is closed: `cat`
 * exits and stays a zombie (a child that exited before the exec could be reaped by the
 * shell).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { until } from './until.js';

export interface Zombie {
  pid: number;
  /** End its parent (init reaps the zombie then). */
  end(): void;
}

function state(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

export async function zombie(): Promise<Zombie> {
  const parent = spawn('sh', ['-c', 'cat <&3 >/dev/null & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore', 'pipe'] });
  const [, stdout, , pipe] = parent.stdio;
  if (!stdout || !pipe) throw new Error('the shell was started without its pipes');
  let out = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => (out += chunk));
  const end = () => {
    parent.kill('SIGKILL');
  };
  try {
    const pid = await until(() => (out.includes('\n') ? Number(out.trim()) : undefined), 'the zombie pid');
    await until(() => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim() === 'sleep', 'the shell to become sleep');
    (pipe as NodeJS.WritableStream).end();
    await until(() => state(pid) === 'Z', `process ${pid} to be a zombie`);
    return { pid, end };
  } catch (e) {
    end();
    throw e;
  }
}
