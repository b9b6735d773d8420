/**
 * Public surface of lib/vector: vector indexes (HNSW, brute force), the text
 * index, hybrid fusion and embedders. A leaf library: it knows ids and
 * strings, never records, collections, HTTP or the engine. Other folders
 * import only from here.
 */
export {
  cosineFromParts,
  cosineSimilarity,
  dotProduct,
  euclideanDistance,
  euclideanToSimilarity,
  isMetric,
  METRICS,
  norm,
  similarity,
} from './distance.js';
export type { Metric, VectorLike } from './distance.js';
export { checkDimensions, checkMetric, checkVector, isVectorComponent } from './vector-index.js';
export type { VectorHit, VectorIndex } from './vector-index.js';
export { BruteForceIndex, NearestScan } from './brute-force.js';
export { BoundedHeap } from './top-k.js';
export type { BruteForceOptions } from './brute-force.js';
export { DEFAULT_EF_SEARCH, HNSW_DEFAULTS, HnswIndex } from './hnsw.js';
export type { HnswOptions, HnswSavedState } from './hnsw.js';
export { HnswBatch, HnswThread, RemoteHnsw } from './hnsw-thread.js';
export { hnswlib, hnswlibBuild } from './native/hnswlib-build.js';
export { builtAddonFile, loadBuiltAddon } from './native/built-addon.js';
export type { HnswlibBuildName } from './native/hnswlib-build.js';
export { EF_LADDER, RECALL_TARGET } from './hnsw-calibration.js';
export type { Calibrated } from './hnsw-calibration.js';
export { lowerThisThread, startModuleWorker, ThreadPriority, WORKER_NICENESS } from './module-worker.js';
export { autoEditDistance, BM25_B, BM25_K1, EXACT_BOOST, TextIndex } from './text/text-index.js';
export type { TextHit, TextSearchOptions } from './text/text-index.js';
export { MAX_FUZZY_EXPANSIONS, STEM_WEIGHT } from './text/text-vocabulary.js';
export { STEMMING_LANGUAGES, stemmerFor, stemmingLanguage } from './text/stemmers.js';
export type { Stemmer } from './text/stemmers.js';
export { tokenize } from './text/tokenize.js';
export { DEFAULT_FUSION_WEIGHTS, fuseScores } from './hybrid.js';
export type { FusionWeights, HybridHit, TextHitLike } from './hybrid.js';
export { OFFLINE_DEFAULT_DIMENSIONS, OFFLINE_MODEL, OfflineEmbedder } from './embedder.js';
export type { Embedder, OfflineEmbedderOptions } from './embedder.js';
