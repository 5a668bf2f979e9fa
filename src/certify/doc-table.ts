/**
 * The per-check tables of docs/certify.md, made from the checklist itself (`npm run docs`
 * writes them; a test fails when the page is stale), so the page never lists a check the
 * command does not run.
 */
import { groupsOf } from './checklist.js';
import type { CheckDef, Need } from './types.js';

export const TABLE_BEGIN = '<!-- BEGIN checks table: generated from the checklist by `npm run docs`; do not edit by hand. -->';
export const TABLE_END = '<!-- END checks table -->';

const NEEDS: Record<Need, string> = { admin: 'operator surface', webhooks: 'webhooks reach the listener', target: '`--webhook-target`' };

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderChecksTable(checks: readonly CheckDef[]): string {
  const parts: string[] = [TABLE_BEGIN, ''];
  for (const group of groupsOf(checks)) {
    parts.push(`#### \`${group}\``, '', '| Id | Title | What a pass proves | Needs |', '|---|---|---|---|');
    for (const c of checks.filter((x) => x.id.startsWith(`${group}.`))) {
      const needs = (c.needs ?? []).map((n) => NEEDS[n]).join(', ') || '—';
      parts.push(`| \`${c.id}\` | ${cell(c.title)} | ${cell(c.proves)}${c.required === false ? ' (Can only warn.)' : ''} | ${needs} |`);
    }
    parts.push('');
  }
  parts.push(TABLE_END);
  return parts.join('\n');
}

/** The page with its tables replaced (between the markers, whatever the old begin line said). */
export function withChecksTable(page: string, checks: readonly CheckDef[]): string {
  const begin = page.indexOf('<!-- BEGIN checks table');
  const end = page.indexOf(TABLE_END);
  if (begin < 0 || end < begin) throw new Error('docs/certify.md has no checks table markers');
  return page.slice(0, begin) + renderChecksTable(checks) + page.slice(end + TABLE_END.length);
}
