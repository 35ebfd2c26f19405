// How values, numbers and paths read as text, the same everywhere (flame graph, tables, CLI,
// export). Free of the profile's types, so that the profile itself can use it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace symflame::model {

/// Last path component ("/usr/lib/libc.so.6" -> "libc.so.6").
std::string_view baseName(std::string_view path);

/// v as "0x" and lowercase hexadecimal digits, no padding ("0x4010a0").
std::string hexNumber(uint64_t v);

/// A value with its unit, scaled for reading: "1.25s", "340ms", "12.5MiB", "1234". Time units
/// scale ns/us/ms/s/hrs, byte units 1024-based B/KiB/MiB/GiB/TiB/PiB (where pprof, scaling the
/// same way, says kB/MB/...), with at most two decimals and trailing zeros dropped; count-like
/// units ("count", "samples", none) print the plain integer; other units print as "12 widgets".
std::string formatValue(int64_t value, std::string_view unit);

/// value in the scale formatValue picks for reference, so that a table's column reads in one
/// unit as pprof's tables do (reference = the column's largest value or the total): "810ms",
/// "0.5ms", and zero as "0ms". Units without scales read as formatValue.
std::string formatValueScaled(int64_t value, std::string_view unit, int64_t reference);

/// part's share of total as pprof's -list and -disasm headers print it: "  100%", " 5.15%",
/// "0.041%" (of magnitudes).
std::string pprofShare(int64_t part, int64_t total);

} // namespace symflame::model
