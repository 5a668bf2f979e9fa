/**
 * certify's reporters. `pretty` is live (createPrettyReporter: a line per check as it ends,
 * then the summary); `json`, `junit` and `markdown` render the finished report as one string
 * (renderReport), written to a file or to stdout.
 * The `--reporter NAME[=FILE]` syntax (docs/certify.md) is read by planReporters.
 */
import { UsageError } from '../../core/errors/index.js';
import type { CertifyReport } from '../report.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';

export { createPrettyReporter, plainLine, type PrettyOptions, type PrettyReporter, type PrettyRunInfo } from './pretty.js';
export { renderJson } from './json.js';
export { renderJunit } from './junit.js';
export { renderMarkdown } from './markdown.js';
export { verdictText } from './common.js';

export const REPORTERS = ['pretty', 'json', 'junit', 'markdown'] as const;
export type ReporterName = (typeof REPORTERS)[number];

/** The reporters that render the finished report as a document (to a file or stdout). */
export const FILE_REPORTERS = ['json', 'junit', 'markdown'] as const;
export type FileReporterName = (typeof FILE_REPORTERS)[number];

const RENDER: Record<FileReporterName, (report: CertifyReport) => string> = {
  json: renderJson,
  junit: renderJunit,
  markdown: renderMarkdown,
};

/** The report as the named reporter writes it (UTF-8 text, a newline at the end). */
export function renderReport(name: FileReporterName, report: CertifyReport): string {
  return RENDER[name](report);
}

export function isFileReporter(name: string): name is FileReporterName {
  return (FILE_REPORTERS as readonly string[]).includes(name);
}

/** What the reporter flags ask for. */
export interface ReporterPlan {
  /** Where pretty writes, or null when it is not printed. */
  pretty: 'stdout' | 'stderr' | null;
  /** The document reporters, in the order given: each to its file, or to stdout (`file` null; at most one). */
  documents: { name: FileReporterName; file: string | null }[];
}

/**
 * Read `--reporter NAME[=FILE]` (repeatable) and `--out FILE`:
 *
 * - no `--reporter`: pretty on stdout;
 * - `json`, `junit`, `markdown` write to FILE when given, else to stdout; at most one on stdout;
 * - `--out FILE` is the file of the single reporter given (`--reporter junit --out r.xml`);
 * - pretty writes to the terminal (never to a file): on stdout, or on stderr when a document
 *   reporter has stdout. It is printed when named, and also when every reporter named writes
 *   to a file (so a run never prints nothing); a reporter on stdout without `pretty` named
 *   leaves stdout to that document alone.
 *
 * Throws UsageError (exit 2) for an unknown name, `pretty=FILE`, two reporters on stdout,
 * `--out` with none or several reporters, a reporter or a file named twice.
 */
export function planReporters(specs: readonly string[], out?: string): ReporterPlan {
  const parsed = specs.map((spec) => {
    const eq = spec.indexOf('=');
    const name = (eq < 0 ? spec : spec.slice(0, eq)).trim();
    const file = eq < 0 ? null : spec.slice(eq + 1);
    if (!(REPORTERS as readonly string[]).includes(name)) {
      throw new UsageError(
        `unknown reporter ${JSON.stringify(name)}`,
        `use --reporter NAME[=FILE] with NAME one of ${REPORTERS.join(', ')}`,
      );
    }
    if (file !== null && file.trim() === '')
      throw new UsageError(`--reporter ${name}= names no file`, `write --reporter ${name}=FILE, or --reporter ${name} for stdout`);
    if (name === 'pretty' && file !== null)
      throw new UsageError(
        'the pretty reporter writes to the terminal, not to a file',
        'for a file, use --reporter markdown=FILE (or json=FILE, junit=FILE)',
      );
    return { name: name as ReporterName, file };
  });
  const names = parsed.map((p) => p.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new UsageError(`--reporter ${twice} is given twice`, 'give each reporter once');
  if (out !== undefined) {
    if (out.trim() === '') throw new UsageError('--out names no file', 'write --out FILE');
    if (parsed.length !== 1) {
      throw new UsageError(
        parsed.length === 0
          ? '--out needs the reporter it is the file of'
          : '--out is the file of a single reporter, and several are given',
        'write --reporter NAME=FILE for each (e.g. --reporter junit=report.xml --reporter markdown=report.md)',
      );
    }
    const only = parsed[0]!;
    if (only.name === 'pretty')
      throw new UsageError(
        'the pretty reporter writes to the terminal, not to a file',
        'for a file, use --reporter markdown --out FILE (or json, junit)',
      );
    if (only.file !== null)
      throw new UsageError(`--reporter ${only.name}=${only.file} already names its file, and --out names another`, 'give the file once');
    only.file = out;
  }
  const documents = parsed.filter((p): p is { name: FileReporterName; file: string | null } => p.name !== 'pretty');
  const onStdout = documents.filter((d) => d.file === null);
  if (onStdout.length > 1) {
    throw new UsageError(
      `only one reporter can write to stdout, and ${onStdout.map((d) => d.name).join(' and ')} would`,
      `give the others a file: --reporter ${onStdout[1]!.name}=FILE`,
    );
  }
  const files = documents.map((d) => d.file).filter((f): f is string => f !== null);
  const sameFile = files.find((f, i) => files.indexOf(f) !== i);
  if (sameFile !== undefined) throw new UsageError(`two reporters would write to ${sameFile}`, 'give each its own file');
  const prettyNamed = names.includes('pretty');
  const pretty = onStdout.length > 0 ? (prettyNamed ? 'stderr' : null) : 'stdout';
  return { pretty, documents };
}
