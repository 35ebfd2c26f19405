// The lookup command's reading of one input line (or address argument), as llvm-symbolizer 19
// reads it when --obj names the binary (see lookupcmd.cpp). Apart so that the fuzz harness
// (fuzz/fuzz_lookup.cpp) checks it against LLVM's own number parser.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::app {

/// One input line (or address argument), parsed.
struct Request {
    enum Kind {
        Address, ///< look up address
        Empty, ///< an empty line: answered as unknown, with no module name
        Malformed, ///< error says why; answered as unknown
        SymbolName, ///< "symbol[+offset]": answered for each symbol of that raw name
    };
    /// What only Malformed and SymbolName requests have (a plain address, the common request,
    /// stays 24 bytes: a profile's worth of them is read at once).
    struct Detail {
        std::string input; ///< the line as given, for the message of a Malformed request
        std::string error;
        std::string symbol;
        uint64_t symbolOffset = 0;
        std::vector<uint64_t> symbolAddresses; ///< symbol address (+ offset) of each match
    };
    Kind kind = Malformed;
    uint32_t answer = 0; ///< Address: index of its answer among the looked-up addresses
    uint64_t address = 0;
    std::unique_ptr<Detail> detail;

    Detail& more()
    {
        if (!detail)
            detail = std::make_unique<Detail>();
        return *detail;
    }
    std::span<const uint64_t> symbolAddresses() const
    {
        return detail ? std::span<const uint64_t>(detail->symbolAddresses) : std::span<const uint64_t>();
    }
};

/// StringRef::getAsInteger(0, ...) as LLVM does it: the base from the prefix (0x/0X hex, 0b/0B
/// binary, 0o or a leading 0 octal, else decimal), every character a digit of that base, no
/// overflow.
bool parseAutoRadix(std::string_view s, uint64_t* out);
/// One input line, as llvm-symbolizer reads it.
Request parseRequest(std::string_view line);
/// "0x" and 1 to 16 hexadecimal digits, nothing else: what parseRequest would read as that
/// address (the common line, read without the general parser).
bool isPlainHexAddress(std::string_view s, uint64_t* out);

} // namespace symflame::app
