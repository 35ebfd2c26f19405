// Fuzz harness: the lookup command's reading of input lines (app/lookuprequest), against LLVM's
// own number parser, which llvm-symbolizer uses and ours copies: for every word, parseAutoRadix
// accepts exactly what llvm::StringRef::getAsInteger(0, ...) accepts, with the same value; the
// fast path for plain hexadecimal lines agrees with the general parser; a line read as a symbol
// name has one. The input is one line (or, split at newlines, several).
#include "app/lookuprequest.h"

#include <llvm/ADT/StringRef.h>

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace symflame::app;

namespace {

[[noreturn]] void fail(const char* what, std::string_view input)
{
    std::fprintf(stderr, "fuzz_lookup: %s: '%.*s'\n", what, static_cast<int>(input.size()), input.data());
    std::abort();
}

void checkLine(std::string_view line)
{
    const std::string_view word = line.substr(0, line.find(' '));
    uint64_t ours = 0;
    unsigned long long theirs = 0;
    const bool ok = parseAutoRadix(word, &ours);
    const bool llvmOk = !llvm::StringRef(word.data(), word.size()).getAsInteger(0, theirs);
    if (ok != llvmOk)
        fail(ok ? "a number LLVM rejects" : "a number LLVM reads", word);
    if (ok && ours != theirs)
        fail("a number read to another value than LLVM's", word);

    const Request r = parseRequest(line);
    uint64_t fast = 0;
    if (isPlainHexAddress(line, &fast) && (r.kind != Request::Address || r.address != fast))
        fail("the plain-hex fast path disagrees with the general parser", line);
    if (r.kind == Request::SymbolName && (!r.detail || r.detail->symbol.empty()))
        fail("a symbol request without a symbol", line);
    if (r.kind == Request::Malformed && (!r.detail || r.detail->error.empty()))
        fail("a malformed request without a reason", line);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    checkLine(text);
    for (size_t at = 0; at <= text.size();) {
        const size_t nl = text.find('\n', at);
        checkLine(text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
        if (nl == std::string_view::npos)
            break;
        at = nl + 1;
    }
    return 0;
}
