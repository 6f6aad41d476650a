// quick.cpp - LLVM's XXH3 for C: the memory tier's bucket hash (hash.h).
#include <llvm/Support/xxhash.h>

#include <cstddef>
#include <cstdint>

extern "C" uint64_t cuplug__quick_hash(const void *data, size_t size) {
  return llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(static_cast<const uint8_t *>(data), size));
}
