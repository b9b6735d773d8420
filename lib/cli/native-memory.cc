// Two process-memory hooks that neither Node nor V8 expose to JavaScript
// (loaded by lib/cli/native-memory.ts; optional: the server runs without them).
#include <node.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

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

}  // namespace

NODE_MODULE_INIT() {
  NODE_SET_METHOD(exports, "reduceHeap", ReduceHeap);
  NODE_SET_METHOD(exports, "trimMalloc", TrimMalloc);
}
