/**
 * Retrieval for one message: each configured collection is searched with the
 * message text (BM25 over the plan's text fields and weights) and, when the
 * plan names vector fields, with the message's embedding too (a hybrid
 * search per vector field, through the engine's search indexes). A record
 * found by several searches keeps its best score and the union of its
 * matched fields. Snippets are the records bare, with their ids, best first,
 * without the vector fields searched (numbers no reader or model needs).
 *
 * The embedding is computed once per message, and only when some collection
 * has a vector field. A vector field whose stored vectors have another
 * dimension than the embedder's is a configuration error (InvalidInput from
 * the engine), not a silently empty search.
 */
import { recordToWire, type SearchRequest, type Session } from '../../engine/index.js';
import type { Embedder } from '../../vector/index.js';
import type { ContextSnippet } from './message-record.js';
import { retrievalPlan, type RetrievalPlan } from './retrieval-plan.js';
import type { CollectionConfig } from '../chat-sessions/chat-session-config.js';

function searchRequest(
  plan: RetrievalPlan,
  query: string,
  vector?: { field: string; values: number[] },
): SearchRequest {
  return {
    query,
    ...(plan.textFields.length > 0 ? { fields: [...plan.textFields] } : {}),
    ...(Object.keys(plan.weights).length > 0 ? { weights: { ...plan.weights } } : {}),
    ...(plan.language !== undefined ? { language: plan.language } : {}),
    ...(plan.caseSensitive !== undefined ? { caseSensitive: plan.caseSensitive } : {}),
    ...(plan.fuzzy !== undefined ? { fuzzy: plan.fuzzy } : {}),
    ...(plan.stemming !== undefined ? { stemming: plan.stemming } : {}),
    ...(plan.boostExact !== undefined ? { boostExact: plan.boostExact } : {}),
    ...(plan.minScore !== undefined ? { minScore: plan.minScore } : {}),
    ...(plan.maxEditDistance !== undefined ? { maxEditDistance: plan.maxEditDistance } : {}),
    limit: plan.limit,
    // Vectors are for finding records, not for reading: they stay out of snippets and prompts.
    ...(plan.vectorFields.length > 0 ? { excludeFields: [...plan.vectorFields] } : {}),
    vectorField: vector?.field ?? 'embedding',
    ...(vector ? { vector: vector.values, vectorK: plan.limit } : {}),
  };
}

/** Searches `collections` for `message`; at most each plan's `limit` snippets per collection, best first overall. */
export async function retrieve(
  session: Session,
  collections: readonly CollectionConfig[],
  message: string,
  embedder: () => Embedder,
): Promise<ContextSnippet[]> {
  const plans = collections.map((c) => retrievalPlan(c));
  const query = message.trim();
  let embedding: number[] | undefined;
  if (plans.some((p) => p.vectorFields.length > 0) && query !== '') [embedding] = await embedder().embed([query]);
  const snippets: ContextSnippet[] = [];
  for (const plan of plans) snippets.push(...(await searchCollection(session, plan, query, embedding)));
  return snippets.sort((a, b) => b.score - a.score);
}

async function searchCollection(
  session: Session,
  plan: RetrievalPlan,
  query: string,
  embedding: number[] | undefined,
): Promise<ContextSnippet[]> {
  const requests =
    embedding && plan.vectorFields.length > 0 && embedding.some((x) => x !== 0)
      ? plan.vectorFields.map((field) => searchRequest(plan, query, { field, values: embedding }))
      : [searchRequest(plan, query)];
  const best = new Map<string, ContextSnippet>();
  for (const req of requests) {
    if (req.query === '' && !req.vector) continue;
    for (const hit of (await session.search(plan.collection, req)).results) {
      const id = String(hit.record.id);
      const seen = best.get(id);
      const matched = seen ? [...new Set([...seen.matched_fields, ...hit.matched_fields])] : hit.matched_fields;
      if (!seen || hit.score > seen.score) {
        best.set(id, {
          collection: plan.collection,
          record: recordToWire(hit.record, { typed: false }),
          score: hit.score,
          matched_fields: matched,
        });
      } else best.set(id, { ...seen, matched_fields: matched });
    }
  }
  return [...best.values()].sort((a, b) => b.score - a.score).slice(0, plan.limit);
}
