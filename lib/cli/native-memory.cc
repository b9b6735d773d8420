// Process-memory hooks that neither Node nor V8 expose to JavaScript
// (loaded by lib/cli/native-memory.ts; optional: the server runs without them).
#include <node.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <cstdint>

namespace {

using v8::FunctionCallbackInfo;
using v8::MemoryPressureLevel;
using v8::Value;

// Starts V8's memory-reducing major collection: incremental marking, then a
// compaction of fragmented pages, whose freed pages go back to the OS. It is
// the collection V8's own memory reducer runs when a process has been idle
// for a while, asked for now.
void ReduceHeap(const FunctionCallbackInfo<Value>& args) {
  args.GetIsolate()->MemoryPressureNotification(MemoryPressureLevel::kModerate);
}

// Returns the free pages inside malloc's arenas to the OS (glibc keeps what
// freed ArrayBuffers leave behind); true when some memory was released.
void TrimMalloc(const FunctionCallbackInfo<Value>& args) {
#if defined(__GLIBC__)
  args.GetReturnValue().Set(malloc_trim(0) == 1);
#else
  args.GetReturnValue().Set(false);
#endif
}

// Lets malloc keep freed blocks for reuse instead of unmapping them: blocks
// up to the first argument (bytes) come from its heap rather than a mapping
// of their own, and it gives memory back only when more than the second is
// free at the top. A fresh mapping's pages are each faulted in on first
// write, which on a virtual machine cost more than writing a request body,
// a log frame or a snapshot frame into them. True when both were set.
void KeepFreedMemory(const FunctionCallbackInfo<Value>& args) {
#if defined(__GLIBC__)
  if (args.Length() < 2 || !args[0]->IsUint32() || !args[1]->IsUint32()) return;
  const uint32_t mmapBytes = args[0].As<v8::Uint32>()->Value();
  const uint32_t trimBytes = args[1].As<v8::Uint32>()->Value();
  if (mmapBytes > INT32_MAX || trimBytes > INT32_MAX) return;
  args.GetReturnValue().Set(mallopt(M_MMAP_THRESHOLD, static_cast<int>(mmapBytes)) == 1 &&
                              mallopt(M_TRIM_THRESHOLD, static_cast<int>(trimBytes)) == 1);
#else
  args.GetReturnValue().Set(false);
#endif
}

}  // namespace

NODE_MODULE_INIT() {
  NODE_SET_METHOD(exports, "reduceHeap", ReduceHeap);
  NODE_SET_METHOD(exports, "trimMalloc", TrimMalloc);
  NODE_SET_METHOD(exports, "keepFreedMemory", KeepFreedMemory);
}
