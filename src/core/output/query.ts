/**
 * `--jmespath EXPRESSION`: a JMESPath query (the community edition of the language, as the
 * AWS and Azure CLIs' `--query`) run on the JSON a command prints. Loaded only when the flag
 * is given: print.ts applies the compiled query it finds on the IO and never imports this file.
 */
import { compile, isRegistered, TreeInterpreter, type JSONValue } from '@jmespath-community/jmespath';
import { QueryRunError, UsageError } from '../errors/index.js';
import type { JsonQuery } from '../io/io.js';

const HINT_SYNTAX = `write a JMESPath expression (https://jmespath.site), e.g. --jmespath '[].order_id' on a list or --jmespath "[?status=='DELIVERED'].order_id"`;

function reason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}

/** The names of the functions an expression calls (every `Function` node of its tree). */
function functionNames(node: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) for (const n of node) functionNames(n, into);
  else if (node !== null && typeof node === 'object') {
    const rec = node as Record<string, unknown>;
    if (rec.type === 'Function' && typeof rec.name === 'string') into.add(rec.name);
    for (const v of Object.values(rec)) if (v !== null && typeof v === 'object') functionNames(v, into);
  }
  return into;
}

/**
 * Compile `expression`: a syntax error or a function the language does not have is a
 * UsageError (exit 2) naming the expression and the problem, before any request is sent.
 */
export function compileQuery(expression: string): JsonQuery {
  if (expression.trim() === '') throw new UsageError('--jmespath needs an expression', HINT_SYNTAX);
  let ast: ReturnType<typeof compile>;
  try {
    ast = compile(expression);
  } catch (error) {
    throw new UsageError(`--jmespath ${JSON.stringify(expression)} is not a valid expression: ${reason(error)}`, HINT_SYNTAX);
  }
  const unknown = [...functionNames(ast)].filter((name) => !isRegistered(name));
  if (unknown.length > 0)
    throw new UsageError(
      `--jmespath ${JSON.stringify(expression)} calls ${unknown.map((n) => `${n}()`).join(', ')}, which JMESPath does not have`,
      'see the functions at https://jmespath.site (e.g. length, sort_by, to_string, join, contains)',
    );
  return {
    expression,
    apply(value: unknown): unknown {
      // The query sees the JSON as printed: what JSON.stringify leaves out (undefined) is absent.
      const json = JSON.parse(JSON.stringify(value) ?? 'null') as JSONValue;
      try {
        return TreeInterpreter.search(ast, json);
      } catch (error) {
        throw new QueryRunError(
          `--jmespath ${JSON.stringify(expression)} could not run on this output: ${reason(error)}`,
          'run the command with --json alone to see the data the expression is applied to',
        );
      }
    },
  };
}
