/**
 * How the demo talks: numbered headings, short explanations, result lines and trace IDs.
 * Colour on a TTY only; plain lines when piped. With --json the story goes to stderr and
 * stdout gets one JSON summary at the end. While a spinner runs (TTY), lines are printed
 * above it.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import { colorEnabled, type IO } from '../../core/io/io.js';
import { startSpinner, type Spinner } from '../../core/output/spinner.js';

export class Narrator {
  readonly c: ChalkInstance;
  private step = 0;
  private spinner: Spinner | undefined;
  private readonly stream: 'stdout' | 'stderr';

  constructor(
    private readonly io: IO,
    private readonly options: { json: boolean; noColor: boolean },
  ) {
    this.stream = options.json ? 'stderr' : 'stdout';
    this.c = new Chalk({ level: colorEnabled(io, this.stream, options.noColor) ? 1 : 0 });
  }

  /** Spinners only when the story itself is on a terminal. */
  private get interactive(): boolean {
    return !this.options.json && this.io.stdoutIsTTY && this.io.stderrIsTTY;
  }

  line(text = ''): void {
    // The spinner persists lines behind a one-character symbol and a space: keep the indent.
    if (this.spinner) this.spinner.info(text.replace(/^ {2}/, ''));
    else this.io[this.stream].write(text + '\n');
  }

  title(text: string): void {
    this.line(this.c.bold(text));
  }

  heading(text: string): void {
    this.step += 1;
    this.line();
    this.line(this.c.bold.cyan(`${this.step}. ${text}`));
  }

  /** Explanatory text, indented and dimmed. */
  explain(text: string): void {
    for (const l of text.split('\n')) this.line(this.c.dim(`   ${l}`));
  }

  /** A result line. */
  item(text: string): void {
    this.line(`   ${text}`);
  }

  /** The request that was made and its trace ID. */
  request(method: string, path: string, status: number, traceId: string | undefined): void {
    this.line(`   ${this.c.magenta('→')} ${method} ${path}  ${this.status(status)}  ${this.c.dim('trace')} ${traceId ?? '(none)'}`);
  }

  ok(text: string): void {
    this.line(`   ${this.c.green('✓')} ${text}`);
  }

  private status(code: number): string {
    const t = String(code);
    return code < 300 ? this.c.green(t) : code < 500 ? this.c.yellow(t) : this.c.red(t);
  }

  async startSpinner(text: string): Promise<void> {
    if (!this.interactive) return;
    this.spinner = await startSpinner(this.io, text);
  }

  spinnerText(text: string): void {
    this.spinner?.text(text);
  }

  stopSpinner(): void {
    this.spinner?.stop();
    this.spinner = undefined;
  }
}
