#!/usr/bin/env node
// Writes docs/commands.md (and the checks tables of docs/certify.md, and the command names of src/core/io/command-names.ts) from the built CLI (run `npm run build` first; `npm run docs`
// does both). `--check` writes nothing and exits 1 when the checked-in file is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'docs', 'commands.md');
const load = (p) => import(pathToFileURL(join(root, 'dist', p)).href);
const [{ buildProgram }, { createFactory }, { renderCommandReference, renderCommandNames }] = await Promise.all([
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
// src/core/io/command-names.ts: the names the note wrapper keeps with a command, formatted as lint wants them.
const namesTarget = join(root, 'src', 'core', 'io', 'command-names.ts');
const prettier = await import('prettier');
const names = await prettier.format(renderCommandNames(program), {
  ...(await prettier.resolveConfig(namesTarget)),
  filepath: namesTarget,
});

// docs/certify.md: the per-check tables, from the checklist.
const [{ CHECKLIST }, { withChecksTable }] = await Promise.all([load('certify/checklist.js'), load('certify/doc-table.js')]);
const certifyTarget = join(root, 'docs', 'certify.md');
const certifyPage = withChecksTable(await readFile(certifyTarget, 'utf8'), CHECKLIST);

if (process.argv.includes('--check')) {
  const current = await readFile(target, 'utf8').catch(() => '');
  if (current !== text || (await readFile(certifyTarget, 'utf8')) !== certifyPage || (await readFile(namesTarget, 'utf8')) !== names) {
    process.stderr.write('docs/commands.md, docs/certify.md or src/core/io/command-names.ts is stale: run `npm run docs`\n');
    process.exit(1);
  }
} else {
  await writeFile(target, text);
  await writeFile(certifyTarget, certifyPage);
  await writeFile(namesTarget, names);
  process.stdout.write(`wrote ${target}, the checks tables of ${certifyTarget} and ${namesTarget}\n`);
}
