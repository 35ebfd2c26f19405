// Fuzz harness: the small text parsers of symbolize/ that take what users, environments and
// producers write: --path-map specs and their application to recorded paths, DEBUGINFOD_URLS,
// build IDs as producers record them, and symbol demangling (legacy Rust decoded by us; C++, v0
// Rust and D through LLVM). The first byte chooses; the rest is the text (for path maps: the
// spec, a newline, the path). Checks what each promises:
//  - parsePathMap: FROM=TO with both non-empty and FROM free of '='; applyPathMap's result, when
//    any, starts with TO;
//  - parseDebuginfodUrls: non-empty URLs without blanks, in the order given;
//  - normalizeBuildId: idempotent;
//  - demangleRustLegacy: a non-empty name when it accepts; demangleSymbol never aborts.
#include "symbolize/locate/debuginfodclient.h"
#include "symbolize/locate/debuginfolocator.h"
#include "symbolize/object/demangle.h"
#include "symbolize/object/elffile.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace symflame::symbolize;

namespace {

[[noreturn]] void fail(const char* what, std::string_view input)
{
    std::fprintf(stderr, "fuzz_text: %s: '%.*s'\n", what, static_cast<int>(input.size()), input.data());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    switch (data[0] % 4) {
    case 0: {
        const size_t nl = text.find('\n');
        const std::string_view spec = text.substr(0, nl);
        const std::string_view path = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        auto map = parsePathMap(spec);
        if (!map)
            return 0;
        if (map->from.empty() || map->to.empty() || map->from.find('=') != std::string::npos
            || map->from + "=" + map->to != spec)
            fail("path map not split at its first '='", spec);
        const std::string mapped = applyPathMap(*map, path);
        if (!mapped.empty() && !std::string_view(mapped).starts_with(map->to))
            fail("mapped path does not start with the map's target", text);
        break;
    }
    case 1: {
        std::string rejoined;
        for (const std::string& u : parseDebuginfodUrls(text)) {
            if (u.empty() || u.find_first_of(" \t\n") != std::string::npos)
                fail("a debuginfod URL empty or with blanks", text);
            rejoined += u;
        }
        std::string nonBlank(text);
        std::erase_if(nonBlank, [](char c) { return c == ' ' || c == '\t' || c == '\n'; });
        if (rejoined != nonBlank)
            fail("debuginfod URLs lost or reordered characters", text);
        break;
    }
    case 2: {
        const std::string once = normalizeBuildId(text);
        if (normalizeBuildId(once) != once)
            fail("normalizeBuildId is not idempotent", text);
        break;
    }
    default: {
        std::string out;
        if (demangleRustLegacy(text, &out) && out.empty())
            fail("legacy Rust symbol demangled to nothing", text);
        (void)demangleSymbol(text);
        break;
    }
    }
    return 0;
}
