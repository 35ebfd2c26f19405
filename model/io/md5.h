// MD5 of a file's bytes, to compare a source file with the checksum DWARF 5 line tables record
// for it (DW_LNCT_MD5): a small wrapper over nettle's (Debian's libnettle, already linked for
// SHA-256), so that no other file includes nettle.
#pragma once

#include "model/core/result.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace symflame::model {

using Md5Digest = std::array<uint8_t, 16>;

/// The MD5 of the file at path, read in pieces (at most maxBytes; a larger file is an error).
Result<Md5Digest> md5OfFile(const std::string& path, uint64_t maxBytes = uint64_t(1) << 30);

} // namespace symflame::model
