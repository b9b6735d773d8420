{
  "targets": [
    { "target_name": "eddydb_memory", "sources": ["lib/cli/native-memory.cc"] },
    { "target_name": "eddydb_lock", "sources": ["lib/engine/storage/native-lock.cc"] },
    {
      "target_name": "eddydb_codec",
      "sources": ["lib/http/wire/msgpack-json.cc"],
      "cflags_cc": ["-std=c++17"],
      "xcode_settings": { "CLANG_CXX_LANGUAGE_STANDARD": "c++17" },
      "msvs_settings": { "VCCLCompilerTool": { "AdditionalOptions": ["/std:c++17"] } }
    }
  ]
}
