/**
 * How the demo talks: numbered headings, short explanations, result lines and trace IDs.
 * Colour on a TTY only; plain lines when piped. With --json the story goes to stderr and
 * stdout gets one JSON summary at the end. While a spinner runs (TTY), lines are printed
 * above it.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import { asciiText } from '../../core/io/ascii.js';
import { asciiOnly, colorEnabled, type IO } from '../../core/io/io.js';
import { wrapCells } from '../../core/output/cells.js';
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
    else this.io[this.stream].write((asciiOnly(this.io) ? asciiText(text) : text) + '\n');
  }

  /** The width of the terminal the story is told on; undefined when it is piped (lines whole). */
  private width(): number | undefined {
    const tty = this.stream === 'stdout' ? this.io.stdoutIsTTY : this.io.stderrIsTTY;
    return tty ? (this.io[this.stream] as { columns?: number }).columns || this.io.columns : undefined;
  }

  /**
   * `prefix` (`indent` cells wide) and `body`: on a terminal, wrapped at spaces to its width,
   * the lines after the first indented as far as the body starts (`more` cells further);
   * piped, one line.
   */
  private indented(prefix: string, indent: number, body: string, paint: (s: string) => string = (s) => s, more = 0): void {
    const width = this.width();
    // Wrapped as shown: where only ASCII is shown, an ellipsis takes three cells, an arrow two.
    const ascii = asciiOnly(this.io) ? asciiText : (s: string) => s;
    const lead = ascii(prefix);
    const hang = indent + lead.length - prefix.length;
    // A continuation indent that would leave less than half the line: 2 cells in instead.
    const deeper = width !== undefined && width - hang - more < (width - hang) / 2 ? Math.min(more, 2) : more;
    const parts = width === undefined ? [ascii(body)] : wrapCells(ascii(body), width - hang, width - hang - deeper);
    parts.forEach((part, i) => this.line(`${i === 0 ? lead : ' '.repeat(hang + deeper)}${paint(part)}`));
  }

  title(text: string): void {
    this.indented('', 0, text, this.c.bold);
  }

  heading(text: string): void {
    this.step += 1;
    this.line();
    const number = `${this.step}. `;
    this.indented(this.c.bold.cyan(number), number.length, text, this.c.bold.cyan);
  }

  /** Explanatory text, indented and dimmed. */
  explain(text: string): void {
    for (const l of text.split('\n')) this.indented('   ', 3, l, this.c.dim);
  }

  /** A result line; a wrapped one goes on `more` cells further in, so it does not read as the next. */
  item(text: string, more = 0): void {
    this.indented('   ', 3, text, undefined, more);
  }

  /** The request that was made and its trace ID. */
  request(method: string, path: string, status: number, traceId: string | undefined): void {
    this.indented(
      `   ${this.c.magenta('→')} `,
      5,
      `${method} ${path}  ${this.status(status)}  ${this.c.dim('trace')} ${traceId ?? '(none)'}`,
    );
  }

  ok(text: string): void {
    this.indented(`   ${this.c.green('✓')} `, 5, text);
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
