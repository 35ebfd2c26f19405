// MiniDebugInfo (Fedora, RHEL): a binary's .gnu_debugdata section holds an xz-compressed ELF file
// whose .symtab names the functions .dynsym does not (symbolization.md §4). This decompresses it
// (liblzma) into memory and parses it as an ELF file; corrupt or absurd data gives an error value.
#pragma once

#include "model/core/result.h"
#include "symbolize/object/elffile.h"

#include <cstdint>
#include <span>
#include <vector>

namespace symflame::symbolize {

/// Largest decompressed .gnu_debugdata accepted (a symbol table: real ones are a few MiB).
inline constexpr uint64_t kMaxMiniDebugInfoSize = uint64_t(512) << 20;

/// Decompresses an .xz stream; errors name the liblzma failure ("corrupt data", "truncated").
model::Result<std::vector<uint8_t>> decompressXz(std::span<const uint8_t> data, uint64_t maxSize);

/// The ELF file inside binary's .gnu_debugdata, named "<binary>[.gnu_debugdata]" in messages.
/// NotFound when the binary has no such section.
model::Result<ElfFilePtr> openMiniDebugInfo(const ElfFile& binary);

} // namespace symflame::symbolize
