#include "app/printers/checkprinter.h"

#include <cstdio>
#include <string>

namespace symflame::app {

namespace {

std::string yesNo(bool b)
{
    return b ? "yes" : "no";
}

std::string dwarfText(const symbolize::DwarfSummary& d)
{
    if (!d.present)
        return d.error.empty() ? std::string("none") : "unreadable: " + d.error;
    std::string s = "version " + std::to_string(d.minVersion);
    if (d.maxVersion != d.minVersion)
        s += "-" + std::to_string(d.maxVersion);
    s += ", " + std::to_string(d.units) + (d.units == 1 ? " unit" : " units");
    s += d.compression == symbolize::SectionCompression::None
        ? std::string(", not compressed")
        : std::string(", compressed (") + symbolize::sectionCompressionName(d.compression) + ")";
    return s;
}

} // namespace

void CheckPrinter::print(const symbolize::BinaryCheck& check)
{
    if (m_json)
        m_checks.push_back(toJson(check));
    else
        printText(check);
}

void CheckPrinter::finish()
{
    if (!m_json)
        return;
    writeJson(m_out, m_checks);
    m_out << '\n';
}

void CheckPrinter::printText(const symbolize::BinaryCheck& c)
{
    Output& out = m_out;
    const auto row = [&](std::string_view key, const std::string& value) {
        out << "  " << key;
        for (size_t i = key.size(); i < 18; ++i)
            out << ' ';
        out << value << '\n';
    };
    out << c.path << '\n';
    if (!c.elf) {
        row("result", std::string("UNREADABLE: ") + c.error);
        return;
    }
    const symbolize::ElfFile& e = *c.elf;
    const symbolize::ElfContents& k = e.contents();
    row("GNU build ID", e.buildId().empty() ? std::string("(none)") : e.buildId());
    row("Go build ID", e.goBuildId().empty() ? std::string("(none)") : e.goBuildId());
    row("type",
        std::string(e.is64() ? "ELF64 " : "ELF32 ") + (e.isLittleEndian() ? "LE " : "BE ")
            + symbolize::elfTypeName(e.type()) + (k.debugOnly ? " (separate debug file)" : ""));
    row("DWARF",
        (c.located.dwarf && c.located.dwarfPath != c.path ? "(in " + c.located.dwarfPath + ") " : std::string())
            + dwarfText(c.dwarf));
    row(".symtab", yesNo(k.symtab));
    row(".dynsym", yesNo(k.dynsym));
    row(".gnu_debugdata", yesNo(k.gnuDebugdata));
    row("gopclntab",
        !c.goTable.empty()            ? c.goTable
            : !c.goTableError.empty() ? "unreadable: " + c.goTableError
                                      : yesNo(k.gopclntab));
    if (const auto& link = e.debugLink()) {
        char crc[16];
        std::snprintf(crc, sizeof crc, "%08x", link->crc);
        row(".gnu_debuglink", link->name + " (CRC " + crc + ")");
    } else {
        row(".gnu_debuglink", "(none)");
    }
    // The dwz link lives in the debug file, which may be a separate one.
    const auto& alt
        = c.located.dwarf && c.located.dwarf->debugAltLink() ? c.located.dwarf->debugAltLink() : e.debugAltLink();
    if (alt)
        row(".gnu_debugaltlink",
            alt->path + " (build ID " + alt->buildId + ")"
                + (c.located.supplementaryPath.empty() ? std::string() : ", found at " + c.located.supplementaryPath));
    else
        row(".gnu_debugaltlink", "(none)");
    row("debug info used",
        c.located.source == symbolize::DebugSource::None && !c.goTable.empty() ? "gopclntab of " + c.path
                                                                               : c.located.summary());
    for (const std::string& t : c.located.tried)
        row("tried", t);
    const char* tag = c.verdict == symbolize::CheckVerdict::Lines ? "OK: "
        : c.verdict == symbolize::CheckVerdict::NamesOnly         ? "NO LINES: "
                                                                  : "NOTHING: ";
    row("result", tag + c.verdictText);
}

Json CheckPrinter::toJson(const symbolize::BinaryCheck& c)
{
    Json json {
        { "path", c.path },
        { "verdict", symbolize::checkVerdictName(c.verdict) },
        { "summary", c.elf ? c.verdictText : c.error },
    };
    if (!c.elf)
        return json;
    const symbolize::ElfContents& k = c.elf->contents();
    json["gnu_build_id"] = c.elf->buildId();
    json["go_build_id"] = c.elf->goBuildId();
    json["dwarf"] = Json {
        { "present", c.dwarf.present },
        { "min_version", int(c.dwarf.minVersion) },
        { "max_version", int(c.dwarf.maxVersion) },
        { "units", uint64_t(c.dwarf.units) },
        { "compression", symbolize::sectionCompressionName(c.dwarf.compression) },
        { "file", c.located.dwarfPath },
    };
    json["symtab"] = bool(k.symtab);
    json["dynsym"] = bool(k.dynsym);
    json["gnu_debugdata"] = bool(k.gnuDebugdata);
    json["gopclntab"] = !c.goTable.empty();
    json["gopclntab_detail"] = c.goTable.empty() ? c.goTableError : c.goTable;
    json["debuglink"] = c.elf->debugLink() ? c.elf->debugLink()->name : std::string();
    json["source"] = symbolize::debugSourceName(c.located.source);
    json["tried"] = jsonArray(c.located.tried);
    return json;
}

} // namespace symflame::app
