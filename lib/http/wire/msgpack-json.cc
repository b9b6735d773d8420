// A MessagePack request body rewritten as JSON text, when it says nothing
// JSON cannot (loaded by lib/http/wire/msgpack-json.ts, which says why; optional:
// without it every MessagePack body is decoded by msgpackr).
//
// Rewritten: nil, booleans, integers within +-(2^53 - 1), finite floats
// (shortest digits that read back as the same double), strings of valid
// UTF-8, arrays, and maps whose keys are strings, at most 100 containers
// deep. Anything else (binary, extensions, 0xc1, a larger 64-bit int, NaN,
// a non-string key, a deeper container, bytes cut short or left over) and
// any text holding 16 digits in a row (the JSON path would parse it with
// its exact, slower parser) answer undefined, and the caller decodes the
// body with msgpackr.
//
// Memory is bounded by the body: the text grows as it is written and never
// past twice the body plus kOutputSlack bytes (OutputBound). A body whose
// text would be longer (strings of control characters, each written as the
// six bytes \u00XX; arrays of small numbers) is declined the same way, so
// a body can never make the rewrite hold more than about twice itself.
// Every length read from the body is checked against the bytes left before
// anything is read or reserved for it.
#include <node.h>
#include <node_buffer.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using v8::FunctionCallbackInfo;
using v8::Isolate;
using v8::Local;
using v8::NewStringType;
using v8::String;
using v8::Value;

constexpr int kMaxDepth = 100;
constexpr int kLongDigitRun = 16;
constexpr uint64_t kMaxSafe = 9007199254740991ULL;  // 2^53 - 1
// The longest text rewritten: V8's longest string.
constexpr size_t kMaxText = static_cast<size_t>(v8::String::kMaxLength);
// The text may be twice the body plus this: room for a tiny body's numbers
// ("127" from one byte) without letting a large one grow past twice itself.
constexpr size_t kOutputSlack = 64;

// The most text a body of `length` bytes may become (see the header).
size_t OutputBound(size_t length) {
  if (length > (kMaxText - kOutputSlack) / 2) return kMaxText;
  return 2 * length + kOutputSlack;
}

// String bytes copied as they are (kAscii, kNonAscii), or handled one by one
// (0: digits, whose runs are counted, and what JSON escapes).
constexpr uint8_t kAscii = 1;
constexpr uint8_t kNonAscii = 2;
struct VerbatimTable {
  uint8_t kind[256];
  constexpr VerbatimTable() : kind() {
    for (int c = 0; c < 256; c++) {
      bool escaped = c < 0x20 || c == '"' || c == '\\';
      bool digit = c >= '0' && c <= '9';
      kind[c] = escaped || digit ? 0 : c >= 0x80 ? kNonAscii : kAscii;
    }
  }
  uint8_t operator[](uint8_t c) const { return kind[c]; }
};
constexpr VerbatimTable kVerbatim;

class Rewriter {
 public:
  Rewriter(const uint8_t* src, size_t length) : p_(src), end_(src + length), bound_(OutputBound(length)) {
    // Most bodies' text is a little longer than the body (quotes, commas); grown if not.
    Grow(length > bound_ / 2 ? bound_ : length + length / 4 + kOutputSlack);
  }
  ~Rewriter() { std::free(out_); }
  Rewriter(const Rewriter&) = delete;
  Rewriter& operator=(const Rewriter&) = delete;

  // The whole body as one value, every byte used.
  bool Rewrite() { return cap_ > 0 && Value(0) && p_ == end_ && run_ < kLongDigitRun; }

  const char* Text() const { return out_; }
  size_t Length() const { return len_; }
  bool Ascii() const { return ascii_; }

  // The text's buffer, now the caller's to free.
  char* Release() {
    char* out = out_;
    out_ = nullptr;
    cap_ = len_ = 0;
    return out;
  }

 private:
  const uint8_t* p_;
  const uint8_t* const end_;
  // Invariants: len_ <= cap_ <= bound_ <= kMaxText.
  const size_t bound_;
  char* out_ = nullptr;
  size_t cap_ = 0;
  size_t len_ = 0;
  bool ascii_ = true;
  // Digits written in a row so far; reaching kLongDigitRun fails the rewrite.
  int run_ = 0;

  // `n` more bytes of body are left (a length read from the body is checked with this before use).
  bool Have(uint64_t n) const { return static_cast<uint64_t>(end_ - p_) >= n; }

  uint64_t BigEndian(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = (v << 8) | *p_++;
    return v;
  }

  // Room for `need` more bytes, doubling up to the bound; false when the
  // text would pass the bound (the body then goes to msgpackr) or memory is
  // short. Written so that no sum can wrap: len_ <= cap_ <= bound_.
  bool Grow(size_t need) {
    if (need <= cap_ - len_) return true;
    if (need > bound_ - len_) return false;
    size_t cap = cap_ > bound_ / 2 ? bound_ : cap_ * 2;
    if (cap - len_ < need) cap = len_ + need;
    // realloc: a large block is moved by remapping its pages, so old and new are never both held.
    char* grown = static_cast<char*>(std::realloc(out_, cap));
    if (grown == nullptr) return false;
    out_ = grown;
    cap_ = cap;
    return true;
  }

  // Punctuation and literals: no digits.
  bool Put(char c) {
    if (!Grow(1)) return false;
    out_[len_++] = c;
    run_ = 0;
    return true;
  }

  bool PutLiteral(const char* s) {
    size_t n = std::strlen(s);
    if (!Grow(n)) return false;
    std::memcpy(out_ + len_, s, n);
    len_ += n;
    run_ = 0;
    return true;
  }

  // A number's characters, counting its digit runs.
  bool PutNumber(const char* s, size_t n) {
    if (!Grow(n)) return false;
    for (size_t i = 0; i < n; i++) {
      char c = s[i];
      out_[len_++] = c;
      run_ = (c >= '0' && c <= '9') ? run_ + 1 : 0;
      if (run_ >= kLongDigitRun) return false;
    }
    return true;
  }

  bool Unsigned(uint64_t v) {
    if (v > kMaxSafe) return false;
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return PutNumber(buf, r.ptr - buf);
  }

  bool Signed(int64_t v) {
    if (v > static_cast<int64_t>(kMaxSafe) || v < -static_cast<int64_t>(kMaxSafe)) return false;
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return PutNumber(buf, r.ptr - buf);
  }

  bool Float(double v) {
    if (!std::isfinite(v)) return false;
    char buf[40];
    // The shortest digits that read back as this double; -0 keeps its sign.
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    if (r.ec != std::errc()) return false;
    return PutNumber(buf, r.ptr - buf);
#else
    // A standard library without floating-point to_chars (GCC before 11):
    // the fewest significant digits that read back exactly.
    for (int precision = 1; precision <= 17; precision++) {
      int n = std::snprintf(buf, sizeof buf, "%.*g", precision, v);
      // A locale writing another decimal separator is declined rather than trusted.
      if (n <= 0 || std::strspn(buf, "0123456789+-.e") != static_cast<size_t>(n)) return false;
      if (std::strtod(buf, nullptr) == v) return PutNumber(buf, static_cast<size_t>(n));
    }
    return false;
#endif
  }

  bool Value(int depth) {
    if (!Have(1)) return false;
    uint8_t b = *p_++;
    if (b <= 0x7f) return Unsigned(b);
    if (b >= 0xe0) return Signed(static_cast<int8_t>(b));
    if (b >= 0xa0 && b <= 0xbf) return Str(b & 0x1f);
    if (b >= 0x90 && b <= 0x9f) return Array(b & 0x0f, depth);
    if (b >= 0x80 && b <= 0x8f) return Map(b & 0x0f, depth);
    switch (b) {
      case 0xc0: return PutLiteral("null");
      case 0xc2: return PutLiteral("false");
      case 0xc3: return PutLiteral("true");
      case 0xcc: return Have(1) && Unsigned(BigEndian(1));
      case 0xcd: return Have(2) && Unsigned(BigEndian(2));
      case 0xce: return Have(4) && Unsigned(BigEndian(4));
      case 0xcf: return Have(8) && Unsigned(BigEndian(8));
      case 0xd0: return Have(1) && Signed(static_cast<int8_t>(BigEndian(1)));
      case 0xd1: return Have(2) && Signed(static_cast<int16_t>(BigEndian(2)));
      case 0xd2: return Have(4) && Signed(static_cast<int32_t>(BigEndian(4)));
      case 0xd3: return Have(8) && Signed(static_cast<int64_t>(BigEndian(8)));
      case 0xca: {
        if (!Have(4)) return false;
        uint32_t bits = static_cast<uint32_t>(BigEndian(4));
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return Float(static_cast<double>(f));
      }
      case 0xcb: {
        if (!Have(8)) return false;
        uint64_t bits = BigEndian(8);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return Float(d);
      }
      case 0xd9: return Have(1) && Str(BigEndian(1));
      case 0xda: return Have(2) && Str(BigEndian(2));
      case 0xdb: return Have(4) && Str(BigEndian(4));
      case 0xdc: return Have(2) && Array(BigEndian(2), depth);
      case 0xdd: return Have(4) && Array(BigEndian(4), depth);
      case 0xde: return Have(2) && Map(BigEndian(2), depth);
      case 0xdf: return Have(4) && Map(BigEndian(4), depth);
      default: return false;  // binary, extensions, 0xc1
    }
  }

  // `count` is read from the body: each member takes at least one byte, so a
  // count the bytes left cannot hold is refused before any member is read.
  bool Array(uint64_t count, int depth) {
    if (depth >= kMaxDepth || !Have(count)) return false;
    if (!Put('[')) return false;
    for (uint64_t i = 0; i < count; i++) {
      if (i > 0 && !Put(',')) return false;
      if (!Value(depth + 1)) return false;
    }
    return Put(']');
  }

  // Each entry takes at least two bytes (count < 2^32: the product cannot wrap).
  bool Map(uint64_t count, int depth) {
    if (depth >= kMaxDepth || !Have(2 * count)) return false;
    if (!Put('{')) return false;
    for (uint64_t i = 0; i < count; i++) {
      if (i > 0 && !Put(',')) return false;
      if (!Key()) return false;
      if (!Put(':')) return false;
      if (!Value(depth + 1)) return false;
    }
    return Put('}');
  }

  // msgpackr makes text of other keys its own way: only string keys are rewritten.
  bool Key() {
    if (!Have(1)) return false;
    uint8_t b = *p_++;
    if (b >= 0xa0 && b <= 0xbf) return Str(b & 0x1f);
    if (b == 0xd9) return Have(1) && Str(BigEndian(1));
    if (b == 0xda) return Have(2) && Str(BigEndian(2));
    if (b == 0xdb) return Have(4) && Str(BigEndian(4));
    return false;
  }

  // A string of `n` bytes (a length read from the body, checked first).
  // Room grows with the text: each byte needs one, an escaped one up to six.
  bool Str(uint64_t length) {
    if (!Have(length)) return false;
    // At most the bytes left in the body, so it fits a size_t and n + 6 cannot wrap.
    const size_t n = static_cast<size_t>(length);
    const uint8_t* s = p_;
    p_ += n;
    // Invariant in the loop: room for the rest written as it is, plus the closing quote.
    if (!Grow(n + 2)) return false;
    out_[len_++] = '"';
    size_t o = len_;
    int run = 0;
    uint8_t seen = 0;
    size_t i = 0;
    while (i < n) {
      // Bytes written as they are, in one copy: printable ASCII other than digits, quote and backslash, and UTF-8.
      size_t j = i;
      uint8_t k;
      while (j < n && (k = kVerbatim[s[j]]) != 0) {
        seen |= k;
        j++;
      }
      if (j > i) {
        std::memcpy(out_ + o, s + i, j - i);
        o += j - i;
        run = 0;
        i = j;
        if (i == n) break;
      }
      uint8_t c = s[i];
      if (c >= '0' && c <= '9') {
        if (++run >= kLongDigitRun) return false;
        out_[o++] = static_cast<char>(c);
        i++;
        continue;
      }
      run = 0;
      // An escape takes up to six bytes for one: room for it, the rest of the string and the quote.
      if (cap_ - o < n - i + 6) {
        len_ = o;
        if (!Grow(n - i + 6)) return false;
      }
      i++;
      out_[o++] = '\\';
      switch (c) {
        case '"': out_[o++] = '"'; break;
        case '\\': out_[o++] = '\\'; break;
        case '\n': out_[o++] = 'n'; break;
        case '\r': out_[o++] = 'r'; break;
        case '\t': out_[o++] = 't'; break;
        case '\b': out_[o++] = 'b'; break;
        case '\f': out_[o++] = 'f'; break;
        default: {
          static const char kHex[] = "0123456789abcdef";
          out_[o++] = 'u';
          out_[o++] = '0';
          out_[o++] = '0';
          out_[o++] = kHex[c >> 4];
          out_[o++] = kHex[c & 15];
        }
      }
    }
    if (seen & kNonAscii) {
      if (!ValidUtf8(s, n)) return false;
      ascii_ = false;
    }
    out_[o++] = '"';
    len_ = o;
    run_ = 0;
    return true;
  }

  // Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past U+10FFFF.
  static bool ValidUtf8(const uint8_t* s, size_t n) {
    size_t i = 0;
    while (i < n) {
      uint8_t c = s[i];
      if (c < 0x80) {
        i++;
        continue;
      }
      int more;
      uint8_t lo = 0x80, hi = 0xbf;  // range of the first continuation byte
      if (c >= 0xc2 && c <= 0xdf) {
        more = 1;
      } else if (c == 0xe0) {
        more = 2; lo = 0xa0;
      } else if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) {
        more = 2;
      } else if (c == 0xed) {
        more = 2; hi = 0x9f;
      } else if (c == 0xf0) {
        more = 3; lo = 0x90;
      } else if (c >= 0xf1 && c <= 0xf3) {
        more = 3;
      } else if (c == 0xf4) {
        more = 3; hi = 0x8f;
      } else {
        return false;
      }
      if (n - i <= static_cast<size_t>(more)) return false;
      if (s[i + 1] < lo || s[i + 1] > hi) return false;
      for (int k = 2; k <= more; k++) {
        if ((s[i + k] & 0xc0) != 0x80) return false;
      }
      i += more + 1;
    }
    return true;
  }
};

// An ASCII text at least this long becomes an external string over the
// rewrite's own buffer instead of being copied into the V8 heap: a large
// string there takes fresh pages each time, and faulting them in cost more
// than the whole rewrite (Node makes large Latin-1 strings the same way).
constexpr size_t kExternalMin = 64 * 1024;

// The rewrite's buffer, handed to V8 as a one-byte string's storage; freed
// when the string is collected. The isolate is told of the memory, so that
// large texts count toward its collections.
class OwnedText final : public v8::String::ExternalOneByteStringResource {
 public:
  OwnedText(Isolate* isolate, char* data, size_t length) : isolate_(isolate), data_(data), length_(length) {
    isolate_->AdjustAmountOfExternalAllocatedMemory(static_cast<int64_t>(length_));
  }
  ~OwnedText() override {
    std::free(data_);
    isolate_->AdjustAmountOfExternalAllocatedMemory(-static_cast<int64_t>(length_));
  }
  OwnedText(const OwnedText&) = delete;
  OwnedText& operator=(const OwnedText&) = delete;
  const char* data() const override { return data_; }
  size_t length() const override { return length_; }

 private:
  Isolate* const isolate_;
  char* const data_;
  const size_t length_;
};

// msgpackAsJson(buffer): the JSON text, or undefined.
void MsgpackAsJson(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  if (args.Length() < 1 || !node::Buffer::HasInstance(args[0])) return;
  const auto* data = reinterpret_cast<const uint8_t*>(node::Buffer::Data(args[0]));
  size_t length = node::Buffer::Length(args[0]);
  Rewriter w(data, length);
  if (!w.Rewrite()) return;
  size_t n = w.Length();  // at most kMaxText: Grow refuses more
  Local<String> text;
  bool made;
  if (w.Ascii() && n >= kExternalMin) {
    auto* owned = new OwnedText(isolate, w.Release(), n);
    made = String::NewExternalOneByte(isolate, owned).ToLocal(&text);
    // A string V8 did not make did not take the resource (Node's external strings do the same).
    if (!made) delete owned;
  } else if (w.Ascii()) {
    made = String::NewFromOneByte(isolate, reinterpret_cast<const uint8_t*>(w.Text()), NewStringType::kNormal,
                                  static_cast<int>(n)).ToLocal(&text);
  } else {
    made = String::NewFromUtf8(isolate, w.Text(), NewStringType::kNormal, static_cast<int>(n)).ToLocal(&text);
  }
  if (made) args.GetReturnValue().Set(text);
}

}  // namespace

NODE_MODULE_INIT() {
  NODE_SET_METHOD(exports, "msgpackAsJson", MsgpackAsJson);
}
