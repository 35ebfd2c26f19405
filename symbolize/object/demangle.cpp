#include "symbolize/object/demangle.h"

#include <llvm/Demangle/Demangle.h>

#include <cstring>
#include <vector>

namespace symflame::symbolize {

namespace {

bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool isRustHash(std::string_view c)
{
    if (c.size() != 17 || c[0] != 'h')
        return false;
    for (size_t i = 1; i < c.size(); ++i)
        if (!isHex(c[i]))
            return false;
    return true;
}

// Undoes the escapes of one legacy Rust path component; false when an escape is malformed.
bool unescapeComponent(std::string_view c, std::string* out)
{
    if (c.size() >= 2 && c[0] == '_' && c[1] == '$')
        c.remove_prefix(1);
    size_t i = 0;
    while (i < c.size()) {
        const char ch = c[i];
        if (ch == '.') {
            if (i + 1 < c.size() && c[i + 1] == '.') {
                out->append("::");
                i += 2;
            } else {
                out->push_back('.');
                ++i;
            }
            continue;
        }
        if (ch != '$') {
            out->push_back(ch);
            ++i;
            continue;
        }
        const size_t end = c.find('$', i + 1);
        if (end == std::string_view::npos)
            return false;
        const std::string_view esc = c.substr(i + 1, end - i - 1);
        static const struct {
            const char* code;
            char ch;
        } table[] = { { "SP", '@' }, { "BP", '*' }, { "RF", '&' }, { "LT", '<' }, { "GT", '>' }, { "LP", '(' },
            { "RP", ')' }, { "C", ',' } };
        bool done = false;
        for (const auto& e : table)
            if (esc == e.code) {
                out->push_back(e.ch);
                done = true;
                break;
            }
        if (!done) {
            // $uXX$: a character by its hex code (ASCII only in practice).
            if (esc.size() < 2 || esc[0] != 'u')
                return false;
            unsigned v = 0;
            for (size_t k = 1; k < esc.size(); ++k) {
                if (!isHex(esc[k]))
                    return false;
                v = v * 16 + static_cast<unsigned>(esc[k] <= '9' ? esc[k] - '0' : esc[k] - 'a' + 10);
                if (v > 0x10ffff)
                    return false;
            }
            if (v < 0x80) {
                out->push_back(static_cast<char>(v));
            } else if (v < 0x800) {
                out->push_back(static_cast<char>(0xc0 | (v >> 6)));
                out->push_back(static_cast<char>(0x80 | (v & 0x3f)));
            } else if (v < 0x10000) {
                out->push_back(static_cast<char>(0xe0 | (v >> 12)));
                out->push_back(static_cast<char>(0x80 | ((v >> 6) & 0x3f)));
                out->push_back(static_cast<char>(0x80 | (v & 0x3f)));
            } else {
                out->push_back(static_cast<char>(0xf0 | (v >> 18)));
                out->push_back(static_cast<char>(0x80 | ((v >> 12) & 0x3f)));
                out->push_back(static_cast<char>(0x80 | ((v >> 6) & 0x3f)));
                out->push_back(static_cast<char>(0x80 | (v & 0x3f)));
            }
        }
        i = end + 1;
    }
    return true;
}

} // namespace

bool demangleRustLegacy(std::string_view raw, std::string* out)
{
    std::string_view s = raw;
    if (s.starts_with("__ZN")) // Mach-O style extra underscore
        s.remove_prefix(1);
    if (!s.starts_with("_ZN"))
        return false;
    s.remove_prefix(3);
    std::vector<std::string_view> parts;
    while (!s.empty() && s[0] != 'E') {
        size_t len = 0, k = 0;
        while (k < s.size() && s[k] >= '0' && s[k] <= '9') {
            len = len * 10 + static_cast<size_t>(s[k] - '0');
            if (len > s.size())
                return false;
            ++k;
        }
        if (k == 0 || len == 0 || k + len > s.size())
            return false;
        parts.push_back(s.substr(k, len));
        s.remove_prefix(k + len);
    }
    if (s.empty() || parts.size() < 2 || !isRustHash(parts.back()))
        return false;
    s.remove_prefix(1); // 'E'
    // Anything after the E must be a clone suffix such as ".llvm.123456".
    if (!s.empty() && s[0] != '.')
        return false;
    std::string result;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        if (i)
            result.append("::");
        if (!unescapeComponent(parts[i], &result))
            return false;
    }
    *out = std::move(result);
    return true;
}

bool llvmLegacyRustName(std::string_view raw, std::string* out)
{
    if (!raw.starts_with("_ZN"))
        return false;
    std::string_view s = raw.substr(3);
    std::string name;
    std::string_view last;
    while (!s.empty() && s.front() != 'E') {
        size_t len = 0, i = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && len < 100000)
            len = len * 10 + size_t(s[i++] - '0');
        if (i == 0 || len == 0 || i + len > s.size())
            return false;
        last = s.substr(i, len);
        if (!name.empty())
            name += "::";
        name += last;
        s.remove_prefix(i + len);
    }
    if (s.empty() || last.size() != 17 || last[0] != 'h')
        return false;
    for (char c : last.substr(1))
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    s.remove_prefix(1); // 'E'
    if (!s.empty()) {
        if (s.front() != '.')
            return false;
        name += " (" + std::string(s) + ")";
    }
    *out = std::move(name);
    return true;
}

std::string demangleSymbol(std::string_view raw)
{
    std::string out;
    if (demangleRustLegacy(raw, &out))
        return out;
    if (llvm::nonMicrosoftDemangle(raw, out))
        return out;
    return std::string(raw);
}

} // namespace symflame::symbolize
