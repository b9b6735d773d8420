// hnswlib-node's addon (src/addon.cc, included whole) with two functions more: addPointsParallel, which inserts a run
// of vectors into a graph from several threads at once, and searchQuantized, which answers a search by a scan of
// quantized forms of the graph's vectors (sign bits, then 4-bit codes) and an exact re-rank of the best of them.
// hnswlib's graph takes concurrent inserts (a lock per node's links, one for the entry point, one for the label
// table); its own Python bindings insert a batch this way. The package's module registration is left out and made
// again below, with the functions added to its exports.
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
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
 * The sum over a row of sign bits of (bit ? plus : minus), where bit j of the row's 64-bit words (little-endian
 * bytes) is component j's, and plus[j] = 128 + q[j], minus[j] = 128 - q[j] for the query's int8 codes q (128 past
 * the last component): 128 · 64 · words + Σ ±q[j], the signs' dot product with the query offset by a constant.
 * Unsigned bytes are what psadbw sums eight at a time.
 */
inline int32_t DotSigns(const uint8_t* row, const uint8_t* plus, const uint8_t* minus, size_t words) {
  int32_t sum = 0;
#if defined(__AVX512BW__)
  const __m512i zero = _mm512_setzero_si512();
  __m512i acc = _mm512_setzero_si512();
  for (size_t w = 0; w < words; w++) {
    uint64_t bits;
    std::memcpy(&bits, row + 8 * w, 8);
    const __m512i chosen = _mm512_mask_blend_epi8(bits, _mm512_loadu_si512(minus + 64 * w),
                                                  _mm512_loadu_si512(plus + 64 * w));
    acc = _mm512_add_epi64(acc, _mm512_sad_epu8(chosen, zero));
  }
  sum = static_cast<int32_t>(_mm512_reduce_add_epi64(acc));
#elif defined(__AVX2__)
  // Each byte of a 32-bit half spread over eight bytes of a lane, each then tested for its own bit.
  const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3,
                                          3, 3, 3, 3, 3, 3, 3);
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ULL));
  const __m256i zero = _mm256_setzero_si256();
  __m256i acc = _mm256_setzero_si256();
  for (size_t h = 0; h < 2 * words; h++) {
    uint32_t bits;
    std::memcpy(&bits, row + 4 * h, 4);
    const __m256i bytes = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int32_t>(bits)), spread);
    const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit);
    const __m256i chosen =
        _mm256_blendv_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(minus + 32 * h)),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(plus + 32 * h)), set);
    acc = _mm256_add_epi64(acc, _mm256_sad_epu8(chosen, zero));
  }
  alignas(32) int64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  for (int64_t lane : lanes) sum += static_cast<int32_t>(lane);
#else
  for (size_t j = 0; j < 64 * words; j++) sum += (row[j / 8] >> (j % 8)) & 1 ? plus[j] : minus[j];
#endif
  return sum;
}

/** DotSigns of each of `count` rows of 8 · words bytes from `signs`, into `out`: one call for a whole pass. */
__attribute__((noinline)) void DotSignsOfRows(const uint8_t* signs, size_t count, const uint8_t* plus,
                                              const uint8_t* minus, size_t words, int32_t* out) {
  for (size_t r = 0; r < count; r++) out[r] = DotSigns(signs + r * 8 * words, plus, minus, words);
}

/** Typed-array members of searchQuantized's `rows`, or a reason it cannot take them. */
struct Rows {
  const uint8_t* codes = nullptr;
  const float* scales = nullptr;
  const float* biases = nullptr;
  const uint32_t* labels = nullptr;
  const uint8_t* signs = nullptr;
  const float* signScales = nullptr;
  size_t count = 0;
  std::string refused;
};

/** Reads rows[name], a typed array of `perRow` elements a row, into `out`; else says why in `refused`. */
template <typename T>
bool Member(const Napi::Object& rows, const char* name, napi_typedarray_type type, const char* typeName,
            size_t perRow, size_t count, const T** out, std::string& refused) {
  const Napi::Value value = rows.Get(name);
  if (!IsTyped(value, type)) {
    refused = std::string("rows.") + name + " must be a " + typeName;
    return false;
  }
  Napi::TypedArrayOf<T> array = value.As<Napi::TypedArrayOf<T>>();
  if (array.ElementLength() != perRow * count) {
    refused = std::string("rows.") + name + " must hold " + std::to_string(perRow) + " per row of rows.labels";
    return false;
  }
  *out = array.Data();
  return true;
}

/** The arrays of searchQuantized's `rows` (quantized/rows.ts view()), each checked for its type and length. */
Rows RowsOf(const Napi::Value& value, size_t half, size_t signBytes) {
  Rows rows;
  if (!value.IsObject()) {
    rows.refused = "rows must be an object";
    return rows;
  }
  const Napi::Object object = value.As<Napi::Object>();
  const Napi::Value labels = object.Get("labels");
  if (!IsTyped(labels, napi_uint32_array)) {
    rows.refused = "rows.labels must be a Uint32Array";
    return rows;
  }
  rows.count = labels.As<Napi::Uint32Array>().ElementLength();
  rows.labels = labels.As<Napi::Uint32Array>().Data();
  std::string& refused = rows.refused;
  const size_t n = rows.count;
  Member(object, "codes", napi_uint8_array, "Uint8Array", half, n, &rows.codes, refused) &&
      Member(object, "scales", napi_float32_array, "Float32Array", 1, n, &rows.scales, refused) &&
      Member(object, "biases", napi_float32_array, "Float32Array", 1, n, &rows.biases, refused) &&
      Member(object, "signs", napi_uint8_array, "Uint8Array", signBytes, n, &rows.signs, refused) &&
      Member(object, "signScales", napi_float32_array, "Float32Array", 1, n, &rows.signScales, refused);
  return rows;
}

/** The best `size` (estimate, row) pairs offered, in a heap whose top is the worst kept. */
class Best {
 public:
  using Estimate = std::pair<float, uint32_t>;
  explicit Best(size_t size) : size_(size) { kept_.reserve(size + 1); }
  void Offer(float estimate, uint32_t row) {
    if (kept_.size() < size_) {
      kept_.emplace_back(estimate, row);
      std::push_heap(kept_.begin(), kept_.end(), Worse);
    } else if (estimate > kept_.front().first) {
      std::pop_heap(kept_.begin(), kept_.end(), Worse);
      kept_.back() = Estimate(estimate, row);
      std::push_heap(kept_.begin(), kept_.end(), Worse);
    }
  }
  const std::vector<Estimate>& Kept() const { return kept_; }

 private:
  static bool Worse(const Estimate& a, const Estimate& b) { return a.first > b.first; }
  size_t size_;
  std::vector<Estimate> kept_;
};

/** Histogram bins BestRows sorts estimates into. */
constexpr size_t SHORTLIST_BINS = 4096;

/**
 * The rows, in order, of at least the `size` highest estimates (-Infinity and NaN: none), and of any estimate in the
 * same histogram bin as the lowest of those; `lowest` and `highest` bound the estimates that count (`bins`: scratch
 * for a bin per row). Passes over the estimates instead of a heap of `size`: a heap of a thousand rows fed 50,000
 * estimates took longer than computing them.
 */
std::vector<uint32_t> BestRows(const std::vector<float>& estimates, float lowest, float highest, size_t size,
                               std::vector<uint16_t>& bins) {
  std::vector<uint32_t> rows;
  if (!(lowest <= highest)) return rows;
  const float perBin = static_cast<float>(SHORTLIST_BINS) / (highest - lowest);
  // Bin 0 for no estimate (their rows are never listed), 1.. SHORTLIST_BINS for the rest, lowest first.
  bins.resize(estimates.size());
  std::vector<uint32_t> counts(SHORTLIST_BINS + 1, 0);
  for (size_t r = 0; r < estimates.size(); r++) {
    const float e = estimates[r];
    const float bin = (e - lowest) * perBin;
    const size_t b = !(e > -INFINITY) ? 0 : bin < SHORTLIST_BINS - 1 ? 1 + static_cast<size_t>(bin) : SHORTLIST_BINS;
    bins[r] = static_cast<uint16_t>(b);
    counts[b]++;
  }
  size_t lowestBin = SHORTLIST_BINS;
  for (size_t kept = counts[lowestBin]; lowestBin > 1 && kept < size;) kept += counts[--lowestBin];
  rows.reserve(size + counts[lowestBin]);
  for (size_t r = 0; r < estimates.size(); r++)
    if (bins[r] >= lowestBin) rows.push_back(static_cast<uint32_t>(r));
  return rows;
}

/**
 * Per-row arrays a search's first pass fills, kept by the thread from one search to the next rather than allocated
 * and zeroed on every search (10 bytes a row: 500 KB at 50,000 rows).
 */
struct Scratch {
  std::vector<int32_t> dots;
  std::vector<float> estimates;
  std::vector<uint16_t> bins;
};

/**
 * searchQuantized(index, rows, query, shortlist, candidates, outLabels, outDistances[, allowed]): the
 * outLabels.length nearest of `query` among the rows of quantized/rows.ts, by hnswlib's own distance; with `allowed`
 * (a Uint8Array with a byte per row), among the rows whose byte is not 0. `rows` holds, for row r, the vector stored
 * under labels[r] in the graph as 4-bit codes (codes[r·half ..], half = ceil(dim / 2) bytes; DotNibbles says how,
 * each code stored + 8) with scales[r], and as sign bits about a centre (signs[r·signBytes ..], signBytes = 8 per 64
 * components; DotSigns says how) with signScales[r]; biases[r] is -Infinity for a free row.
 * The query is normalized as searchKnn does for cosine and quantized to int8 by its largest component. Three passes,
 * each estimate higher nearer (the caller sets scales and biases so that they order rows as the graph's distance
 * does): every live row's signs, scale(query)·signScales[r]·(signs · query codes) + biases[r], keeping the best
 * `shortlist` (every row when shortlist is under 1 or not fewer than the rows); their codes,
 * scale(query)·scales[r]·(codes · query codes) + biases[r], keeping the best `candidates`; and these scored exactly
 * against the graph's stored vectors (fstdistfunc_: what searchKnn answers), the nearest written out, nearest first.
 * Returns how many were written. Throws for arguments it cannot take.
 */
Napi::Value SearchQuantized(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 7 && info.Length() != 8)
    return Fail(env,
                "searchQuantized takes (index, rows, query, shortlist, candidates, outLabels, outDistances[, "
                "allowed])");
  HierarchicalNSW* wrap = GraphOf(env, info[0], "searchQuantized");
  if (wrap == nullptr) return env.Null();
  hnswlib::HierarchicalNSW<float>* index = wrap->index_;
  const size_t dim = wrap->dim_;
  const size_t half = (dim + 1) / 2;
  const size_t words = (dim + 63) / 64;
  const Rows rows = RowsOf(info[1], half, 8 * words);
  if (!rows.refused.empty()) return Fail(env, "searchQuantized: " + rows.refused);
  if (!IsTyped(info[2], napi_float32_array)) return Fail(env, "searchQuantized: the query must be a Float32Array");
  if (!info[3].IsNumber() || !info[4].IsNumber())
    return Fail(env, "searchQuantized: shortlist and candidates must be numbers");
  if (!IsTyped(info[5], napi_uint32_array) || !IsTyped(info[6], napi_float32_array))
    return Fail(env, "searchQuantized: outLabels must be a Uint32Array and outDistances a Float32Array");
  const bool filtered = info.Length() == 8 && !info[7].IsUndefined();
  if (filtered && !IsTyped(info[7], napi_uint8_array))
    return Fail(env, "searchQuantized: allowed must be a Uint8Array");
  if (filtered && info[7].As<Napi::Uint8Array>().ElementLength() != rows.count)
    return Fail(env, "searchQuantized: allowed must hold a byte per row");
  Napi::Float32Array queryArray = info[2].As<Napi::Float32Array>();
  if (queryArray.ElementLength() != dim)
    return Fail(env, "searchQuantized: the query must have " + std::to_string(dim) + " numbers");
  Napi::Uint32Array outLabels = info[5].As<Napi::Uint32Array>();
  Napi::Float32Array outDistances = info[6].As<Napi::Float32Array>();
  const size_t k = outLabels.ElementLength();
  if (outDistances.ElementLength() != k)
    return Fail(env, "searchQuantized: outLabels and outDistances must be as long as each other");
  const double askedShortlist = info[3].As<Napi::Number>().DoubleValue();
  const double askedCandidates = info[4].As<Napi::Number>().DoubleValue();
  if (!(askedShortlist >= 0)) return Fail(env, "searchQuantized: shortlist must be 0 or more");
  if (!(askedCandidates >= 1)) return Fail(env, "searchQuantized: candidates must be at least 1");
  const auto atMostRows = [&](double asked) { return static_cast<size_t>(std::min<double>(asked, rows.count)); };
  const size_t shortlist = askedShortlist < 1 ? rows.count : atMostRows(askedShortlist);
  const size_t candidates = atMostRows(askedCandidates);

  // The query as the graph compares it (normalized for cosine), then its codes: the low nibbles' components, then
  // the high ones' (a last one of an odd dim pairs with a 0), and each offset both ways for the signs.
  std::vector<float> query(queryArray.Data(), queryArray.Data() + dim);
  if (wrap->normalize_) normalizePoint(query);
  float largest = 0;
  for (float x : query) largest = std::max(largest, std::fabs(x));
  const float queryScale = largest > 0 ? largest / 127.0f : 1.0f;
  std::vector<int8_t> queryCodes(2 * half, 0);
  std::vector<uint8_t> plus(64 * words, 128), minus(64 * words, 128);
  int32_t querySum = 0;
  for (size_t i = 0; i < dim; i++) {
    const int8_t code = static_cast<int8_t>(std::lrintf(query[i] / queryScale));
    queryCodes[i] = code;
    plus[i] = static_cast<uint8_t>(128 + code);
    minus[i] = static_cast<uint8_t>(128 - code);
    querySum += code;
  }
  const int8_t* low = queryCodes.data();
  const int8_t* high = low + half;
  const int32_t signsOffset = static_cast<int32_t>(128 * 64 * words);
  const uint8_t* allowed = filtered ? info[7].As<Napi::Uint8Array>().Data() : nullptr;
  const auto live = [&](size_t r) { return rows.biases[r] > -INFINITY && (allowed == nullptr || allowed[r] != 0); };

  // The shortlist by the signs, in row order (the codes are then read forward), or every live row.
  std::vector<uint32_t> listed;
  if (shortlist < rows.count) {
    thread_local Scratch scratch;
    std::vector<int32_t>& dots = scratch.dots;
    std::vector<float>& estimates = scratch.estimates;
    dots.resize(rows.count);
    estimates.resize(rows.count);
    // Every row's signs, dead ones too: one tight loop costs less than a branch per row.
    DotSignsOfRows(rows.signs, rows.count, plus.data(), minus.data(), words, dots.data());
    float lowest = INFINITY, highest = -INFINITY;
    for (size_t r = 0; r < rows.count; r++) {
      const float e = live(r) ? queryScale * rows.signScales[r] * static_cast<float>(dots[r] - signsOffset) +
                                    rows.biases[r]
                              : -INFINITY;
      estimates[r] = e;
      // Comparisons false for NaN, which is then no bound (and BestRows lists it nowhere); -Infinity is none.
      if (e > -INFINITY && e < lowest) lowest = e;
      if (e > highest) highest = e;
    }
    listed = BestRows(estimates, lowest, highest, shortlist, scratch.bins);
  } else {
    for (size_t r = 0; r < rows.count; r++)
      if (live(r)) listed.push_back(static_cast<uint32_t>(r));
  }

  // The best `candidates` of those by their codes.
  Best best(candidates);
  for (const uint32_t r : listed) {
    const int32_t dot = DotNibbles(rows.codes + r * half, low, high, half) - 8 * querySum;
    best.Offer(queryScale * rows.scales[r] * static_cast<float>(dot) + rows.biases[r], r);
  }

  // Their exact distances, from the graph's stored vectors; the k nearest, nearest first.
  std::vector<std::pair<float, uint32_t>> scored;
  scored.reserve(best.Kept().size());
  {
    std::unique_lock<std::mutex> lock(index->label_lookup_lock);
    for (const Best::Estimate& estimate : best.Kept()) {
      const uint32_t label = rows.labels[estimate.second];
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
