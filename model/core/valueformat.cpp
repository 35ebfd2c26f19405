// How values read as text. Value scaling follows `go tool pprof`'s unit families
// (1024-based bytes, ns..hrs for time), but trailing zeros are dropped ("12.5MB", not "12.50MB").
#include "model/core/valueformat.h"

#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace symflame::model {

std::string_view baseName(std::string_view path)
{
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string hexNumber(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    return buf;
}

namespace {

struct UnitScale {
    const char* name; ///< what we print
    double factor; ///< in the family's base unit
};

struct UnitFamily {
    std::array<const char*, 8> aliases; ///< lower case, singular; nullptr ends the list
    size_t unitIndex; ///< which of the family's scales the aliases name
};

constexpr std::array<UnitScale, 6> kByteScales { {
    { "B", 1.0 },
    { "KiB", 1024.0 },
    { "MiB", 1024.0 * 1024 },
    { "GiB", 1024.0 * 1024 * 1024 },
    { "TiB", 1024.0 * 1024 * 1024 * 1024 },
    { "PiB", 1024.0 * 1024 * 1024 * 1024 * 1024 },
} };
constexpr std::array<UnitScale, 5> kTimeScales { {
    { "ns", 1.0 },
    { "us", 1e3 },
    { "ms", 1e6 },
    { "s", 1e9 },
    { "hrs", 3600e9 },
} };

// Spellings accepted for each unit (after lower-casing and, for names longer than two
// characters, dropping one trailing 's'), as pprof accepts them.
constexpr std::array<UnitFamily, 6> kByteUnits { {
    { { "b", "byte" }, 0 },
    { { "kb", "kib", "kbyte", "kilobyte", "kibibyte" }, 1 },
    { { "mb", "mib", "mbyte", "megabyte", "mebibyte" }, 2 },
    { { "gb", "gib", "gbyte", "gigabyte", "gibibyte" }, 3 },
    { { "tb", "tib", "tbyte", "terabyte", "tebibyte" }, 4 },
    { { "pb", "pib", "pbyte", "petabyte", "pebibyte" }, 5 },
} };
constexpr std::array<UnitFamily, 5> kTimeUnits { {
    { { "ns", "nanosecond" }, 0 },
    { { "us", "\xce\xbcs", "microsecond" }, 1 },
    { { "ms", "millisecond" }, 2 },
    { { "s", "sec", "second" }, 3 },
    { { "hour", "hr" }, 4 },
} };

std::string normalizeUnit(std::string_view unit)
{
    std::string u(unit);
    for (char& c : u)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    if (u.size() > 2 && u.back() == 's')
        u.pop_back();
    return u;
}

template <size_t N> int findUnit(const std::array<UnitFamily, N>& units, const std::string& u)
{
    for (const UnitFamily& f : units)
        for (const char* a : f.aliases)
            if (a && u == a)
                return static_cast<int>(f.unitIndex);
    return -1;
}

// "%.2f" with trailing zeros (and a trailing point) removed; values that would read 0 that
// way, two significant digits ("0.0045": a small value in a column scaled for a large one).
std::string shortNumber(double v)
{
    char buf[64];
    if (v != 0 && v > -0.005 && v < 0.005)
        std::snprintf(buf, sizeof buf, "%.2g", v);
    else
        std::snprintf(buf, sizeof buf, "%.2f", v);
    if (std::strchr(buf, 'e'))
        std::snprintf(buf, sizeof buf, "%.10f", v); // no exponents: 1e-05 as 0.00001
    if (!std::strchr(buf, '.'))
        return buf;
    std::string s = buf;
    while (!s.empty() && s.back() == '0')
        s.pop_back();
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    if (s == "-0")
        s = "0";
    return s;
}

// Magnitude without overflow for INT64_MIN.
uint64_t magnitudeOf(int64_t value)
{
    return value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
}

// magnitude (in units of fromFactor) in the largest scale that pickFrom reaches at least 1 of;
// zero reads "0" without a unit unless zeroWithUnit.
template <size_t N>
std::string scaled(uint64_t magnitude, bool negative, double fromFactor, const std::array<UnitScale, N>& scales,
    uint64_t pickFrom, bool zeroWithUnit)
{
    const double base = static_cast<double>(magnitude) * fromFactor;
    const double pickBase = static_cast<double>(pickFrom) * fromFactor;
    size_t pick = N; // none >= 1: print in the smallest unit
    for (size_t i = 0; i < N; ++i)
        if (pickBase / scales[i].factor >= 1.0)
            pick = i;
    if (pick == N)
        pick = 0;
    std::string s = shortNumber(base / scales[pick].factor);
    if (s == "0")
        return zeroWithUnit ? s + scales[pick].name : s;
    return (negative ? "-" : "") + s + scales[pick].name;
}

// formatValue and formatValueScaled; empty when unit has no scales.
std::string scaledValue(int64_t value, std::string_view unit, uint64_t pickFrom, bool zeroWithUnit)
{
    if (unit.empty())
        return {};
    const std::string u = normalizeUnit(unit);
    if (const int i = findUnit(kByteUnits, u); i >= 0)
        return scaled(magnitudeOf(value), value < 0, kByteScales[static_cast<size_t>(i)].factor, kByteScales, pickFrom,
            zeroWithUnit);
    if (const int i = findUnit(kTimeUnits, u); i >= 0)
        return scaled(magnitudeOf(value), value < 0, kTimeScales[static_cast<size_t>(i)].factor, kTimeScales, pickFrom,
            zeroWithUnit);
    return {};
}

} // namespace

std::string formatValueScaled(int64_t value, std::string_view unit, int64_t reference)
{
    std::string s = scaledValue(value, unit, magnitudeOf(reference), true);
    return s.empty() ? formatValue(value, unit) : s;
}

std::string formatValue(int64_t value, std::string_view unit)
{
    if (std::string s = scaledValue(value, unit, magnitudeOf(value), false); !s.empty())
        return s;
    std::string s = std::to_string(value);
    const std::string u = normalizeUnit(unit);
    if (unit.empty() || u == "count" || u == "sample" || u == "unit" || u == "object")
        return s;
    s += ' ';
    s += unit;
    return s;
}

std::string pprofShare(int64_t part, int64_t total)
{
    const double ratio = total == 0 ? 0.0 : std::fabs(100.0 * double(part) / double(total));
    if (ratio >= 99.95 && ratio <= 100.05)
        return "  100%";
    char buf[32];
    std::snprintf(buf, sizeof buf, ratio >= 1.0 ? "%5.2f%%" : "%5.2g%%", ratio);
    return buf;
}

} // namespace symflame::model
