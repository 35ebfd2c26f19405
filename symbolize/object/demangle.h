// Demangling of symbol names: C++ (Itanium), Rust (v0 through LLVM; legacy Rust decoded here,
// with its "$LT$"-style escapes undone and the "::h<16 hex digits>" hash dropped) and D.
#pragma once

#include <string>
#include <string_view>

namespace symflame::symbolize {

/// The human name for a raw symbol name; the raw name itself when it is not mangled (C) or
/// can't be demangled.
std::string demangleSymbol(std::string_view raw);

/// Decodes a legacy Rust symbol ("_ZN...17h<16 hex>E", optionally followed by a ".llvm.N" or
/// similar suffix) into "a::b::c" without the hash; false when raw is not one.
bool demangleRustLegacy(std::string_view raw, std::string* out);

/// The name LLVM's Itanium demangler gives a legacy Rust symbol ("_ZN" path "17h<hash>E", maybe
/// a ".suffix"), which is what llvm-symbolizer prints: the components joined by "::", escapes
/// and hash kept, the suffix in parentheses. demangleRustLegacy decodes such names further
/// (escapes undone, hash dropped); `symflame lookup` prints llvm-symbolizer's form. False for any
/// other name.
bool llvmLegacyRustName(std::string_view raw, std::string* out);

} // namespace symflame::symbolize
