#!/usr/bin/env node
// Writes docs/commands.md (and the checks tables of docs/certify.md) from the built CLI (run `npm run build` first; `npm run docs`
// does both). `--check` writes nothing and exits 1 when the checked-in file is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'docs', 'commands.md');
const load = (p) => import(pathToFileURL(join(root, 'dist', p)).href);
const [{ buildProgram }, { createFactory }, { renderCommandReference }] = await Promise.all([
  load('program.js'),
  load('factory.js'),
  load('commands/reference.js'),
]);

const io = {
  stdin: new PassThrough(),
  stdout: new PassThrough(),
  stderr: new PassThrough(),
  env: {},
  cwd: root,
  stdinIsTTY: false,
  stdoutIsTTY: false,
  stderrIsTTY: false,
  signal: new AbortController().signal,
  columns: 100,
};
const { program } = await buildProgram(io, (g) => createFactory(io, g));
const text = renderCommandReference(program);

// docs/certify.md: the per-check tables, from the checklist.
const [{ CHECKLIST }, { withChecksTable }] = await Promise.all([load('certify/checklist.js'), load('certify/doc-table.js')]);
const certifyTarget = join(root, 'docs', 'certify.md');
const certifyPage = withChecksTable(await readFile(certifyTarget, 'utf8'), CHECKLIST);

if (process.argv.includes('--check')) {
  const current = await readFile(target, 'utf8').catch(() => '');
  if (current !== text || (await readFile(certifyTarget, 'utf8')) !== certifyPage) {
    process.stderr.write('docs/commands.md or docs/certify.md is stale: run `npm run docs`\n');
    process.exit(1);
  }
} else {
  await writeFile(target, text);
  await writeFile(certifyTarget, certifyPage);
  process.stdout.write(`wrote ${target} and the checks tables of ${certifyTarget}\n`);
}
