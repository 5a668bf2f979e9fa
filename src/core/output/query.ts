/**
 * `--jmespath EXPRESSION`: a JMESPath query (the community edition of the language, as the
 * AWS and Azure CLIs' `--query`) run on the JSON a command prints. Loaded only when the flag
 * is given: print.ts applies the compiled query it finds on the IO and never imports this file.
 */
import { compile, TreeInterpreter, type JSONValue } from '@jmespath-community/jmespath';
import { UsageError } from '../errors/index.js';
import type { JsonQuery } from '../io/io.js';

const HINT_SYNTAX = `write a JMESPath expression (https://jmespath.site), e.g. --jmespath '[].order_id' on a list or --jmespath "[?status=='DELIVERED'].order_id"`;

function reason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}

/** Compile `expression`: a syntax error is a UsageError (exit 2) naming the expression and the problem. */
export function compileQuery(expression: string): JsonQuery {
  if (expression.trim() === '') throw new UsageError('--jmespath needs an expression', HINT_SYNTAX);
  let ast: ReturnType<typeof compile>;
  try {
    ast = compile(expression);
  } catch (error) {
    throw new UsageError(`--jmespath ${JSON.stringify(expression)} is not a valid expression: ${reason(error)}`, HINT_SYNTAX);
  }
  return {
    expression,
    apply(value: unknown): unknown {
      // The query sees the JSON as printed: what JSON.stringify leaves out (undefined) is absent.
      const json = JSON.parse(JSON.stringify(value) ?? 'null') as JSONValue;
      try {
        return TreeInterpreter.search(ast, json);
      } catch (error) {
        throw new UsageError(
          `--jmespath ${JSON.stringify(expression)} could not run on this output: ${reason(error)}`,
          'run the command with --json alone to see the data the expression is applied to',
        );
      }
    },
  };
}
