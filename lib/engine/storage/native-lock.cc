// flock(2) for the data directory's lock, which Node does not expose (loaded
// by lib/engine/storage/native-lock.ts; optional: without it the lock falls
// back to an abstract Unix socket or to the pid in LOCK, see lock.ts).
//
// The kernel drops a flock when the last descriptor of its open file is
// closed, and a dying process closes all of its descriptors: a server killed
// with SIGKILL releases the lock with no help, and a process that later gets
// the same pid holds nothing.
#include <node.h>
#if !defined(_WIN32)
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace {

#if !defined(_WIN32)
using v8::Exception;
using v8::FunctionCallbackInfo;
using v8::Isolate;
using v8::String;
using v8::Value;

int OpenRetrying(const char* path) {
  int fd;
  do fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  while (fd < 0 && errno == EINTR);
  return fd;
}

int FlockRetrying(int fd) {
  int r;
  do r = flock(fd, LOCK_EX | LOCK_NB);
  while (r < 0 && errno == EINTR);
  return r;
}

// lockFile(path): a descriptor of `path` (created 0600 when missing,
// close-on-exec so a child process never inherits the lock) that holds an
// exclusive flock; -1 when another open file holds it. Other failures throw
// an errno error with code, syscall and path. Closing the descriptor
// releases the lock; JavaScript keeps it as a plain number, so nothing
// closes it behind the holder's back.
//
// A holder removes the file while it still holds the lock, then closes it.
// A descriptor opened before that removal can win the flock of a file that
// no longer has the name, which would lock nothing anyone else sees: the
// locked file must still be the one at `path`, or the open starts again.
void LockFile(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  if (args.Length() < 1 || !args[0]->IsString()) {
    isolate->ThrowException(Exception::TypeError(String::NewFromUtf8Literal(isolate, "lockFile(path: string)")));
    return;
  }
  String::Utf8Value path(isolate, args[0]);
  for (;;) {
    int fd = OpenRetrying(*path);
    if (fd < 0) {
      isolate->ThrowException(node::ErrnoException(isolate, errno, "open", nullptr, *path));
      return;
    }
    if (FlockRetrying(fd) < 0) {
      int err = errno;
      close(fd);
      if (err == EWOULDBLOCK) {
        args.GetReturnValue().Set(-1);
      } else {
        isolate->ThrowException(node::ErrnoException(isolate, err, "flock", nullptr, *path));
      }
      return;
    }
    struct stat held;
    struct stat named;
    if (fstat(fd, &held) < 0) {
      int err = errno;
      close(fd);
      isolate->ThrowException(node::ErrnoException(isolate, err, "fstat", nullptr, *path));
      return;
    }
    int err = stat(*path, &named) == 0 ? 0 : errno;
    if (err == 0 && named.st_dev == held.st_dev && named.st_ino == held.st_ino) {
      args.GetReturnValue().Set(fd);
      return;
    }
    close(fd);
    if (err != 0 && err != ENOENT) {
      isolate->ThrowException(node::ErrnoException(isolate, err, "stat", nullptr, *path));
      return;
    }
  }
}
#endif

}  // namespace

// Windows has no flock: the module exports nothing there, and the loader
// reports it as unavailable.
NODE_MODULE_INIT() {
#if !defined(_WIN32)
  NODE_SET_METHOD(exports, "lockFile", LockFile);
#endif
}
