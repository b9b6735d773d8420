// hnswlib-node's addon (src/addon.cc, included whole) with one function more: addPointsParallel, which inserts a run
// of vectors into a graph from several threads at once. hnswlib's graph takes concurrent inserts (a lock per node's
// links, one for the entry point, one for the label table); its own Python bindings insert a batch this way. The
// package's module registration is left out and made again below, with the function added to its exports.
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
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
  if (!info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
    return Fail(env, "addPointsParallel: vectors must be a Float32Array");
  if (!info[2].IsTypedArray() || info[2].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array)
    return Fail(env, "addPointsParallel: labels must be a Uint32Array");
  if (!info[3].IsNumber()) return Fail(env, "addPointsParallel: threads must be a number");
  if (!info[4].IsTypedArray() || info[4].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    return Fail(env, "addPointsParallel: failed must be a Uint8Array");

  // The addon's instance data is HierarchicalNSW's constructor (its Init registers it last).
  Napi::Object object = info[0].As<Napi::Object>();
  Napi::FunctionReference* hnsw = env.GetInstanceData<Napi::FunctionReference>();
  if (hnsw == nullptr || !object.InstanceOf(hnsw->Value()))
    return Fail(env, "addPointsParallel: the index must be a HierarchicalNSW");
  HierarchicalNSW* wrap = Napi::ObjectWrap<HierarchicalNSW>::Unwrap(object);
  if (wrap == nullptr) return env.Null();  // not a wrapped index after all; Unwrap has thrown
  if (wrap->index_ == nullptr) return Fail(env, "addPointsParallel: the index is not initialized");
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

Napi::Object InitWithParallel(Napi::Env env, Napi::Object exports) {
  Init(env, exports);
  exports.Set("addPointsParallel", Napi::Function::New(env, AddPointsParallel, "addPointsParallel"));
  return exports;
}

}  // namespace

NODE_API_MODULE(addon, InitWithParallel)
