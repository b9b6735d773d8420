/**
 * Search results: each hit's score, a link to its record and its matched fields with the query's terms marked.
 * The server names the matched fields but not the positions, so the terms are found again here: a word is marked
 * when it starts with a term (or with the term's stem, so "running" marks "runs" as stemming matched it).
 */
import type { ComponentChild } from 'preact';
import { enc } from '../api.js';
import { display, isTyped } from '../values.js';

export interface Hit {
  record: Record<string, unknown>;
  score: number;
  matched_fields: string[];
}

export interface SearchAnswer {
  results: Hit[];
  total: number;
  execution_time_ms: number;
}

const SUFFIXES = ['ing', 'ed', 'es', 's'];
const WORD = /[\p{L}\p{N}]+/gu;

/** The words of a query as lowercase stems (at least two letters), longest first so the regex prefers them. */
export function queryTerms(query: string): string[] {
  const stems = new Set<string>();
  for (const [word] of query.toLowerCase().matchAll(WORD)) {
    if (word.length < 2) continue;
    const suffix = SUFFIXES.find((s) => word.endsWith(s) && word.length - s.length >= 3);
    stems.add(suffix ? word.slice(0, -suffix.length) : word);
  }
  return [...stems].sort((a, b) => b.length - a.length);
}

function termPattern(terms: string[]): RegExp | undefined {
  if (terms.length === 0) return undefined;
  const alternatives = terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives})[\\p{L}\\p{N}]*`, 'giu');
}

/** `text` with every word that starts with one of `terms` in a <mark>. */
export function Highlighted({ text, terms }: { text: string; terms: string[] }) {
  const re = termPattern(terms);
  if (!re) return <>{text}</>;
  const parts: ComponentChild[] = [];
  let at = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > at) parts.push(text.slice(at, m.index));
    parts.push(<mark key={m.index}>{m[0]}</mark>);
    at = m.index + m[0].length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}

function bare(v: unknown): unknown {
  return isTyped(v) ? v.value : v;
}

/** A field's value as text to mark: strings whole, arrays of strings joined, numbers' arrays summarised. */
function fieldText(v: unknown): string {
  const inner = bare(v);
  if (typeof inner === 'string') return inner.length > 400 ? inner.slice(0, 399) + '…' : inner;
  if (Array.isArray(inner) && inner.length > 0 && inner.every((x) => typeof bare(x) === 'number'))
    return `[vector of ${inner.length}]`;
  if (Array.isArray(inner) && inner.every((x) => typeof bare(x) === 'string')) return inner.map(bare).join(', ');
  return display(v);
}

/** The fields to show for a hit: the matched ones first, then a few more for context (never the id). */
function shownFields(hit: Hit): { field: string; matched: boolean }[] {
  const matched = hit.matched_fields.filter((f) => f in hit.record);
  const others = Object.keys(hit.record).filter((f) => f !== 'id' && !matched.includes(f));
  return [
    ...matched.map((field) => ({ field, matched: true })),
    ...others.slice(0, Math.max(0, 3 - matched.length)).map((field) => ({ field, matched: false })),
  ];
}

export function SearchResults({
  collection,
  answer,
  terms,
}: {
  collection: string;
  answer: SearchAnswer;
  terms: string[];
}) {
  return (
    <ol class="search-results" aria-label="Results">
      {answer.results.map((hit, i) => {
        const id = String(bare(hit.record.id) ?? '');
        return (
          <li
            key={id || i}
            class={hit.matched_fields.length ? 'card search-hit has-matches' : 'card search-hit'}
            data-id={id}
          >
            <div class="search-hit-head">
              <span class="muted small">#{i + 1}</span>
              <a href={`/collections/${enc(collection)}/records/${enc(id)}`} class="search-hit-id">
                {id || '(no id)'}
              </a>
              <span class="search-score" title={`score ${hit.score}`} data-testid="score">
                score <strong>{hit.score.toFixed(4)}</strong>
              </span>
            </div>
            <dl class="search-fields">
              {shownFields(hit).map(({ field, matched }) => (
                <div key={field} class={matched ? 'matched' : undefined} data-field={field}>
                  <dt>
                    {field}
                    {matched && <span class="type">matched</span>}
                  </dt>
                  <dd>
                    {matched ? (
                      <Highlighted text={fieldText(hit.record[field])} terms={terms} />
                    ) : (
                      fieldText(hit.record[field])
                    )}
                  </dd>
                </div>
              ))}
            </dl>
          </li>
        );
      })}
    </ol>
  );
}
