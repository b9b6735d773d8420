// hnswlib-node's addon (src/addon.cc, included whole) with two functions more: addPointsParallel, which inserts a run
// of vectors into a graph from several threads at once, and searchQuantized, which answers a search by a scan of
// 4-bit codes of the graph's vectors and an exact re-rank of the best of them. hnswlib's graph takes concurrent
// inserts (a lock per node's links, one for the entry point, one for the label table); its own Python bindings insert
// a batch this way. The package's module registration is left out and made again below, with the functions added to
// its exports.
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#if defined(__AVX2__)
#include <immintrin.h>
#endif
#include <vector>

#pragma push_macro("NODE_API_MODULE")
#undef NODE_API_MODULE
#define NODE_API_MODULE(modname, regfunc)
#include "addon.cc"
#pragma pop_macro("NODE_API_MODULE")

namespace {

/** Threads one call may use: more than any machine this serves has cores to give a graph build. */
constexpr uint32_t MAX_THREADS = 64;

Napi::Value Fail(Napi::Env env, const std::string& message) {
  Napi::Error::New(env, message).ThrowAsJavaScriptException();
  return env.Null();
}

bool IsTyped(const Napi::Value& value, napi_typedarray_type type) {
  return value.IsTypedArray() && value.As<Napi::TypedArray>().TypedArrayType() == type;
}

/**
 * The initialized graph that `value` wraps, or nullptr with a JavaScript exception thrown (`name` says which
 * function refused it).
 */
HierarchicalNSW* GraphOf(Napi::Env env, const Napi::Value& value, const std::string& name) {
  // The addon's instance data is HierarchicalNSW's constructor (its Init registers it last).
  Napi::FunctionReference* hnsw = env.GetInstanceData<Napi::FunctionReference>();
  if (!value.IsObject() || hnsw == nullptr || !value.As<Napi::Object>().InstanceOf(hnsw->Value())) {
    Fail(env, name + ": the index must be a HierarchicalNSW");
    return nullptr;
  }
  HierarchicalNSW* wrap = Napi::ObjectWrap<HierarchicalNSW>::Unwrap(value.As<Napi::Object>());
  if (wrap == nullptr) return nullptr;  // not a wrapped index after all; Unwrap has thrown
  if (wrap->index_ == nullptr) {
    Fail(env, name + ": the index is not initialized");
    return nullptr;
  }
  return wrap;
}

/**
 * addPointsParallel(index, vectors, labels, threads, failed): inserts labels.length vectors, `vectors` holding them
 * one after another (a Float32Array of labels.length x the index's dimensions), each under its label (a
 * Uint32Array), into fresh slots, from `threads` threads (the calling one among them). The graph must have room for
 * all of them (resizeIndex first: hnswlib may not resize while it inserts) and no label may be in it already. Cosine
 * indexes normalize each vector as addPoint does. Returns once every insert is done: null, or the first failed
 * insert's error, each failed insert marked 1 in `failed` (a Uint8Array as long as `labels`). Throws for arguments
 * it cannot take, before inserting any.
 */
Napi::Value AddPointsParallel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 5) return Fail(env, "addPointsParallel takes (index, vectors, labels, threads, failed)");
  if (!info[0].IsObject()) return Fail(env, "addPointsParallel: the index must be a HierarchicalNSW");
  if (!IsTyped(info[1], napi_float32_array)) return Fail(env, "addPointsParallel: vectors must be a Float32Array");
  if (!IsTyped(info[2], napi_uint32_array)) return Fail(env, "addPointsParallel: labels must be a Uint32Array");
  if (!info[3].IsNumber()) return Fail(env, "addPointsParallel: threads must be a number");
  if (!IsTyped(info[4], napi_uint8_array)) return Fail(env, "addPointsParallel: failed must be a Uint8Array");

  HierarchicalNSW* wrap = GraphOf(env, info[0], "addPointsParallel");
  if (wrap == nullptr) return env.Null();
  hnswlib::HierarchicalNSW<float>* index = wrap->index_;

  Napi::Float32Array vectors = info[1].As<Napi::Float32Array>();
  Napi::Uint32Array labels = info[2].As<Napi::Uint32Array>();
  const size_t dim = wrap->dim_;
  const size_t count = labels.ElementLength();
  Napi::Uint8Array failedOut = info[4].As<Napi::Uint8Array>();
  if (failedOut.ElementLength() != count) return Fail(env, "addPointsParallel: failed must be as long as labels");
  if (vectors.ElementLength() != count * dim)
    return Fail(env, "addPointsParallel: vectors must hold labels.length x " + std::to_string(dim) + " numbers");
  if (index->getCurrentElementCount() + count > index->getMaxElements())
    return Fail(env, "addPointsParallel: the index has no room for " + std::to_string(count) + " more vectors");
  const double asked = info[3].As<Napi::Number>().DoubleValue();
  const uint32_t threads = asked < 1 ? 1 : asked > MAX_THREADS ? MAX_THREADS : static_cast<uint32_t>(asked);

  // Read and written in place by every thread: the call holds the JavaScript thread, so no buffer moves or goes.
  const float* data = vectors.Data();
  const uint32_t* ids = labels.Data();
  uint8_t* failed = failedOut.Data();
  std::fill(failed, failed + count, 0);
  std::atomic<size_t> next{0};
  std::mutex failure_lock;
  std::string failure;
  auto insert = [&]() {
    std::vector<float> point(dim);
    for (size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        const float* from = data + i * dim;
        const float* vector = from;
        if (wrap->normalize_) {
          point.assign(from, from + dim);
          normalizePoint(point);
          vector = point.data();
        }
        index->addPoint(vector, static_cast<hnswlib::labeltype>(ids[i]), false);
      } catch (const std::exception& e) {
        failed[i] = 1;
        std::lock_guard<std::mutex> hold(failure_lock);
        if (failure.empty()) failure = e.what();
      }
    }
  };
  std::vector<std::thread> helpers;
  try {
    for (uint32_t t = 1; t < threads && t < count; t++) helpers.emplace_back(insert);
  } catch (const std::exception&) {
    // No more threads to be had: the ones started and this one share the run.
  }
  insert();
  for (std::thread& helper : helpers) helper.join();
  if (failure.empty()) return env.Null();
  return Napi::String::New(env, "Hnswlib Error: " + failure);
}

/**
 * The sum over a row of 4-bit codes of code · query, where byte j of the row holds component j in its low nibble and
 * component j + half in its high one, each as an unsigned 0-15, and `low` and `high` are the query's int8 codes of
 * those components. Unsigned times signed bytes is what the vector units multiply (vpmaddubsw: a pair of products
 * is at most 2 · 15 · 127, within int16), so the caller takes 8 · Σ query off for the signed codes.
 */
__attribute__((noinline)) int32_t DotNibbles(const uint8_t* row, const int8_t* low, const int8_t* high, size_t half) {
  size_t j = 0;
  int32_t sum = 0;
#if defined(__AVX512BW__)
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  const __m512i ones = _mm512_set1_epi16(1);
  __m512i acc = _mm512_setzero_si512();
  for (; j < half; j += 64) {
    const __mmask64 in = half - j >= 64 ? ~0ULL : (1ULL << (half - j)) - 1;
    const __m512i bytes = _mm512_maskz_loadu_epi8(in, row + j);
    const __m512i lo = _mm512_and_si512(bytes, nibble);
    const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(bytes, 4), nibble);
    const __m512i pairs = _mm512_add_epi16(_mm512_maddubs_epi16(lo, _mm512_maskz_loadu_epi8(in, low + j)),
                                           _mm512_maddubs_epi16(hi, _mm512_maskz_loadu_epi8(in, high + j)));
    acc = _mm512_add_epi32(acc, _mm512_madd_epi16(pairs, ones));
  }
  return _mm512_reduce_add_epi32(acc);
#elif defined(__AVX2__)
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc = _mm256_setzero_si256();
  for (; j + 32 <= half; j += 32) {
    const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + j));
    const __m256i lo = _mm256_and_si256(bytes, nibble);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), nibble);
    const __m256i q0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(low + j));
    const __m256i q1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(high + j));
    const __m256i pairs = _mm256_add_epi16(_mm256_maddubs_epi16(lo, q0), _mm256_maddubs_epi16(hi, q1));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
  }
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  for (int32_t lane : lanes) sum += lane;
#endif
  for (; j < half; j++) sum += (row[j] & 0x0F) * low[j] + (row[j] >> 4) * high[j];
  return sum;
}

/**
 * searchQuantized(index, codes, scales, biases, labels, query, candidates, outLabels, outDistances[, allowed]): the
 * outLabels.length nearest of `query` among rows of 4-bit codes (quantized/rows.ts), by hnswlib's own distance;
 * with `allowed` (a Uint8Array with a byte per row), among the rows whose byte is not 0.
 * Row r holds codes[r·half .. r·half + half), half = ceil(dim / 2) bytes of the vector stored under labels[r] in the
 * graph (DotNibbles says how, each code stored + 8); biases[r] is -Infinity for a free row. The query is normalized
 * as searchKnn does for cosine, quantized to int8 by its largest component, and each live row estimated as
 * scale(query)·scales[r]·(codes · query codes) + biases[r], higher nearer: the
 * caller sets scales and biases so that the estimate orders rows as the graph's distance does. The `candidates` best
 * estimates are scored exactly against the graph's stored vectors (fstdistfunc_: what searchKnn answers) and the
 * nearest written out, nearest first. Returns how many were written. Throws for arguments it cannot take.
 */
Napi::Value SearchQuantized(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 9 && info.Length() != 10)
    return Fail(env,
                "searchQuantized takes (index, codes, scales, biases, labels, query, candidates, outLabels, "
                "outDistances[, allowed])");
  if (!info[0].IsObject()) return Fail(env, "searchQuantized: the index must be a HierarchicalNSW");
  if (!IsTyped(info[1], napi_uint8_array)) return Fail(env, "searchQuantized: codes must be a Uint8Array");
  if (!IsTyped(info[2], napi_float32_array) || !IsTyped(info[3], napi_float32_array))
    return Fail(env, "searchQuantized: scales and biases must be Float32Arrays");
  if (!IsTyped(info[4], napi_uint32_array)) return Fail(env, "searchQuantized: labels must be a Uint32Array");
  if (!IsTyped(info[5], napi_float32_array)) return Fail(env, "searchQuantized: the query must be a Float32Array");
  if (!info[6].IsNumber()) return Fail(env, "searchQuantized: candidates must be a number");
  if (!IsTyped(info[7], napi_uint32_array) || !IsTyped(info[8], napi_float32_array))
    return Fail(env, "searchQuantized: outLabels must be a Uint32Array and outDistances a Float32Array");
  const bool filtered = info.Length() == 10 && !info[9].IsUndefined();
  if (filtered && !IsTyped(info[9], napi_uint8_array))
    return Fail(env, "searchQuantized: allowed must be a Uint8Array");

  HierarchicalNSW* wrap = GraphOf(env, info[0], "searchQuantized");
  if (wrap == nullptr) return env.Null();
  hnswlib::HierarchicalNSW<float>* index = wrap->index_;
  const size_t dim = wrap->dim_;
  const size_t half = (dim + 1) / 2;

  Napi::Uint8Array codesArray = info[1].As<Napi::Uint8Array>();
  Napi::Float32Array scalesArray = info[2].As<Napi::Float32Array>();
  Napi::Float32Array biasesArray = info[3].As<Napi::Float32Array>();
  Napi::Uint32Array labelsArray = info[4].As<Napi::Uint32Array>();
  Napi::Float32Array queryArray = info[5].As<Napi::Float32Array>();
  Napi::Uint32Array outLabels = info[7].As<Napi::Uint32Array>();
  Napi::Float32Array outDistances = info[8].As<Napi::Float32Array>();
  const size_t rows = labelsArray.ElementLength();
  if (codesArray.ElementLength() != rows * half || scalesArray.ElementLength() != rows ||
      biasesArray.ElementLength() != rows)
    return Fail(env, "searchQuantized: codes, scales and biases must hold labels.length rows of " +
                         std::to_string(half) + " bytes of codes");
  if (filtered && info[9].As<Napi::Uint8Array>().ElementLength() != rows)
    return Fail(env, "searchQuantized: allowed must hold a byte per row");
  if (queryArray.ElementLength() != dim)
    return Fail(env, "searchQuantized: the query must have " + std::to_string(dim) + " numbers");
  const size_t k = outLabels.ElementLength();
  if (outDistances.ElementLength() != k)
    return Fail(env, "searchQuantized: outLabels and outDistances must be as long as each other");
  const double askedCandidates = info[6].As<Napi::Number>().DoubleValue();
  if (!(askedCandidates >= 1)) return Fail(env, "searchQuantized: candidates must be at least 1");
  const size_t candidates = static_cast<size_t>(std::min<double>(askedCandidates, static_cast<double>(rows)));

  // The query as the graph compares it (normalized for cosine), then its codes.
  std::vector<float> query(queryArray.Data(), queryArray.Data() + dim);
  if (wrap->normalize_) normalizePoint(query);
  float largest = 0;
  for (float x : query) largest = std::max(largest, std::fabs(x));
  const float queryScale = largest > 0 ? largest / 127.0f : 1.0f;
  // The low nibbles' components, then the high ones' (a last one of an odd dim pairs with a 0).
  std::vector<int8_t> queryCodes(2 * half, 0);
  int32_t querySum = 0;
  for (size_t i = 0; i < dim; i++) {
    queryCodes[i] = static_cast<int8_t>(std::lrintf(query[i] / queryScale));
    querySum += queryCodes[i];
  }
  const int8_t* low = queryCodes.data();
  const int8_t* high = low + half;

  // The best `candidates` estimates, in a heap whose top is the worst kept.
  const uint8_t* codes = codesArray.Data();
  const float* scales = scalesArray.Data();
  const float* biases = biasesArray.Data();
  const uint32_t* labels = labelsArray.Data();
  const uint8_t* allowed = filtered ? info[9].As<Napi::Uint8Array>().Data() : nullptr;
  using Estimate = std::pair<float, uint32_t>;
  std::vector<Estimate> best;
  best.reserve(candidates + 1);
  auto worse = [](const Estimate& a, const Estimate& b) { return a.first > b.first; };
  for (size_t r = 0; r < rows; r++) {
    const float bias = biases[r];
    if (!(bias > -INFINITY) || (allowed != nullptr && allowed[r] == 0)) continue;
    const int32_t dot = DotNibbles(codes + r * half, low, high, half) - 8 * querySum;
    const float estimate = queryScale * scales[r] * static_cast<float>(dot) + bias;
    if (best.size() < candidates) {
      best.emplace_back(estimate, static_cast<uint32_t>(r));
      std::push_heap(best.begin(), best.end(), worse);
    } else if (estimate > best.front().first) {
      std::pop_heap(best.begin(), best.end(), worse);
      best.back() = Estimate(estimate, static_cast<uint32_t>(r));
      std::push_heap(best.begin(), best.end(), worse);
    }
  }

  // Their exact distances, from the graph's stored vectors; the k nearest, nearest first.
  std::vector<std::pair<float, uint32_t>> scored;
  scored.reserve(best.size());
  {
    std::unique_lock<std::mutex> lock(index->label_lookup_lock);
    for (const Estimate& estimate : best) {
      const uint32_t label = labels[estimate.second];
      auto found = index->label_lookup_.find(label);
      if (found == index->label_lookup_.end() || index->isMarkedDeleted(found->second)) continue;
      const float distance =
          index->fstdistfunc_(query.data(), index->getDataByInternalId(found->second), index->dist_func_param_);
      scored.emplace_back(distance, label);
    }
  }
  const size_t answered = std::min(k, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + answered, scored.end());
  for (size_t i = 0; i < answered; i++) {
    outLabels[i] = scored[i].second;
    outDistances[i] = scored[i].first;
  }
  return Napi::Number::New(env, static_cast<double>(answered));
}

Napi::Object InitWithParallel(Napi::Env env, Napi::Object exports) {
  Init(env, exports);
  exports.Set("addPointsParallel", Napi::Function::New(env, AddPointsParallel, "addPointsParallel"));
  exports.Set("searchQuantized", Napi::Function::New(env, SearchQuantized, "searchQuantized"));
  return exports;
}

}  // namespace

NODE_API_MODULE(addon, InitWithParallel)
