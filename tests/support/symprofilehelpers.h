// Profiles built from fixture binaries for the symbolize tests: a mapping per binary laid out as
// the kernel maps its executable segment, locations at the entry and the middle of every
// function of its symbol table, one sample each; and each location's inline chain as text.
#pragma once

#include "model/core/profile.h"
#include "symbolize/object/elffile.h"
#include "symbolize/object/symboltable.h"

#include "processhelpers.h"

#include <QString>
#include <QStringList>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

namespace symtest {

using namespace symflame;

struct Binary {
    QString name;
    std::string buildId;
    symbolize::ElfFilePtr elf; // the unstripped original
    uint64_t base = 0;
};

inline bool runTool(const QString& program, const QStringList& args)
{
    symflame::testing::ProcessOptions options;
    options.timeoutMs = 60000;
    return symflame::testing::runProcess(program, args, {}, options).ok();
}

// Every symbol's entry, middle and last byte, sorted and unique: addresses to look up.
inline std::vector<uint64_t> addressesOf(
    const symbolize::ElfFilePtr& elf, symbolize::SymbolTable::Kind kind = symbolize::SymbolTable::Kind::Static)
{
    std::vector<uint64_t> out;
    auto table = symbolize::SymbolTable::load(elf, kind);
    if (!table)
        return out;
    for (const symbolize::SymbolTable::Symbol& s : table->symbols()) {
        out.push_back(s.address);
        if (s.size > 2) {
            out.push_back(s.address + s.size / 2);
            out.push_back(s.address + s.size - 1);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// A profile with, per binary, locations at the entry and the middle of its functions (runtime
// addresses in a mapping at the binary's base, laid out as the kernel maps the executable
// segment), each sampled once. paths gives the recorded path of each binary. With moreAddresses,
// also the byte after each entry.
inline model::Profile makeProfile(
    const std::vector<Binary>& bins, const std::vector<std::string>& paths, bool moreAddresses = false)
{
    model::Profile p;
    p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
    const int64_t one = 1;
    for (size_t b = 0; b < bins.size(); ++b) {
        const symbolize::ElfSegment* x = nullptr;
        for (const symbolize::ElfSegment& s : bins[b].elf->segments())
            if (s.type == symbolize::elf::PT_LOAD && (s.flags & symbolize::elf::PF_X))
                x = &s;
        if (!x)
            continue;
        const uint64_t page = 4096;
        model::Mapping m;
        m.start = bins[b].base + (x->vaddr & ~(page - 1));
        m.limit = bins[b].base + ((x->vaddr + x->memsz + page - 1) & ~(page - 1));
        m.offset = x->offset & ~(page - 1);
        m.file = p.strings.intern(paths[b]);
        m.buildId = p.strings.intern(bins[b].buildId);
        m.sourceId = b + 1;
        const model::MappingId mid(p.mappings.size());
        p.mappings.push_back(m);
        auto table = symbolize::SymbolTable::load(bins[b].elf, symbolize::SymbolTable::Kind::Static);
        if (!table)
            continue;
        for (const symbolize::SymbolTable::Symbol& s : table->symbols()) {
            if (s.address < x->vaddr || s.address >= x->vaddr + x->memsz || s.size == 0)
                continue;
            std::vector<uint64_t> addrs { s.address, s.address + s.size / 2 };
            if (moreAddresses && s.size > 2)
                addrs.push_back(s.address + 1);
            for (uint64_t a : addrs) {
                model::Location loc;
                loc.mapping = mid;
                loc.address = a - x->vaddr + x->offset - m.offset + m.start;
                loc.sourceId = p.locations.size() + 1;
                const model::LocationId lid(p.locations.size());
                p.locations.push_back(loc);
                p.addSample(p.internStack(std::span(&lid, 1)), std::span(&one, 1));
            }
        }
    }
    return p;
}

// Each location's inline chain as text.
inline std::vector<std::string> chains(const model::Profile& p)
{
    std::vector<std::string> out;
    for (const model::Location& loc : p.locations) {
        std::string s;
        for (const model::Line& l : p.linesOf(loc)) {
            const model::Function& f = p.functions[l.function.index()];
            s += std::string(p.str(f.name)) + " " + std::string(p.str(f.file)) + ":" + std::to_string(l.line) + ":"
                + std::to_string(l.column) + "; ";
        }
        out.push_back(s);
    }
    return out;
}

} // namespace symtest
