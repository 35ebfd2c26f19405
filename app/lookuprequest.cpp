#include "app/lookuprequest.h"

namespace symflame::app {

bool parseAutoRadix(std::string_view s, uint64_t* out)
{
    unsigned radix = 10;
    if (s.starts_with("0x") || s.starts_with("0X")) {
        radix = 16;
        s.remove_prefix(2);
    } else if (s.starts_with("0b") || s.starts_with("0B")) {
        radix = 2;
        s.remove_prefix(2);
    } else if (s.starts_with("0o")) {
        radix = 8;
        s.remove_prefix(2);
    } else if (s.size() > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9') {
        radix = 8;
        s.remove_prefix(1);
    }
    if (s.empty())
        return false;
    uint64_t value = 0;
    for (char c : s) {
        unsigned digit;
        if (c >= '0' && c <= '9')
            digit = unsigned(c - '0');
        else if (c >= 'a' && c <= 'z')
            digit = unsigned(c - 'a') + 10;
        else if (c >= 'A' && c <= 'Z')
            digit = unsigned(c - 'A') + 10;
        else
            return false;
        if (digit >= radix)
            return false;
        if (value > (UINT64_MAX - digit) / radix)
            return false;
        value = value * radix + digit;
    }
    *out = value;
    return true;
}

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string_view trimLeft(std::string_view s)
{
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    return s;
}

std::string_view trim(std::string_view s)
{
    s = trimLeft(s);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

} // namespace

Request parseRequest(std::string_view line)
{
    Request r;
    // llvm-symbolizer drops every CR and LF of a line before reading it. Most lines have none and
    // are read in place (a profile's worth of addresses makes this the common path).
    std::string cleaned;
    std::string_view s = line;
    if (line.find_first_of("\r\n") != std::string_view::npos) {
        cleaned = std::string(line);
        std::erase_if(cleaned, [](char c) { return c == '\r' || c == '\n'; });
        s = cleaned;
    }
    if (s.empty()) {
        r.kind = Request::Empty;
        return r;
    }
    const std::string_view whole = s;
    const auto fail = [&](std::string message) {
        r.kind = Request::Malformed;
        r.more().input = std::string(whole);
        r.more().error = std::move(message);
        return std::move(r);
    };
    if (s.starts_with("DATA ") || s.starts_with("FRAME "))
        return fail("symflame lookup answers CODE requests only");
    if (s.starts_with("CODE "))
        s.remove_prefix(5);
    // FILE: and BUILDID: name the binary on the line; --obj already did.
    bool filePrefix = false, buildIdPrefix = false;
    for (;;) {
        s = trimLeft(s);
        const bool file = s.starts_with("FILE:");
        const bool buildId = !file && s.starts_with("BUILDID:");
        if (!file && !buildId)
            break;
        if (filePrefix || buildIdPrefix)
            return fail("duplicate input file specification prefix");
        s.remove_prefix(file ? 5 : 8);
        filePrefix = file;
        buildIdPrefix = buildId;
    }
    if (filePrefix || buildIdPrefix) {
        if (trimLeft(s).empty())
            return fail(filePrefix ? "must be followed by an input file" : "must be followed by a hash");
        return fail("input file has already been specified");
    }
    s = trim(s);
    if (s.empty())
        return fail("no module offset has been specified");
    const std::string_view spec = s.substr(0, s.find(' '));
    if (parseAutoRadix(spec, &r.address)) {
        r.kind = Request::Address;
        return r;
    }
    if (spec.front() >= '0' && spec.front() <= '9')
        return fail("expected a number as module offset");
    r.kind = Request::SymbolName;
    r.more().symbol = std::string(spec);
    // "symbol+offset": the name is what precedes the last '+' when a number follows it.
    if (const size_t plus = spec.rfind('+'); plus != std::string_view::npos && plus > 0) {
        uint64_t offset = 0;
        if (parseAutoRadix(spec.substr(plus + 1), &offset)) {
            r.more().symbol = std::string(spec.substr(0, plus));
            r.more().symbolOffset = offset;
        }
    }
    return r;
}

bool isPlainHexAddress(std::string_view s, uint64_t* out)
{
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return false;
    uint64_t v = 0;
    for (char c : s.substr(2)) {
        unsigned d;
        if (c >= '0' && c <= '9')
            d = unsigned(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = unsigned(c - 'a') + 10;
        else if (c >= 'A' && c <= 'F')
            d = unsigned(c - 'A') + 10;
        else
            return false;
        v = (v << 4) | d;
    }
    *out = v;
    return true;
}

} // namespace symflame::app
