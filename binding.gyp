{
  "targets": [
    { "target_name": "eddydb_memory", "sources": ["lib/cli/native-memory.cc"] }
  ]
}
