# hnswlib-node's own source (src/addon.cc, hnswlib's headers beside it), compiled again with the x86-64 vector
# extensions its distance kernels are written for: hnswlib picks them when the compiler may use them (hnswlib.h
# tests __AVX__ and __AVX512F__), and the package's build has SSE only. bin/build-native.js builds this on x64
# Linux and copies the two addons to build/Release; hnswlib-build.ts loads one only where the CPU runs it. The source
# compiled is hnswlib-parallel.cc, which includes the package's addon.cc whole and adds addPointsParallel and
# searchQuantized to it (the AVX-512 build adds BW, for the byte arithmetic of searchQuantized's scan).
{
  "variables": {
    "hnswlib_src": "<!(node -p \"require('path').relative('.', require('path').join(require('path').dirname(require.resolve('hnswlib-node/package.json')), 'src'))\")"
  },
  "target_defaults": {
    "sources": ["hnswlib-parallel.cc"],
    "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "<(hnswlib_src)"],
    "defines": ["NAPI_DISABLE_CPP_EXCEPTIONS"],
    "cflags!": ["-fno-exceptions"],
    "cflags_cc!": ["-fno-exceptions"]
  },
  "targets": [
    { "target_name": "hnswlib_avx2", "cflags_cc": ["-mavx2", "-mfma"] },
    { "target_name": "hnswlib_avx512", "cflags_cc": ["-mavx2", "-mfma", "-mavx512f", "-mavx512bw"] }
  ]
}
