// The Go engine of openModule(): symbolizes the addresses of a Go binary from its
// gopclntab (symbolize/object/gopclntab.h), for Go binaries without complete DWARF (built with
// -ldflags="-s -w", or stripped). Each address gets the inlined frames from the function's
// inline tree and then the physical function, innermost first; function names are Go's own
// (not mangled: name and system name are the same), files as the Go toolchain recorded them.
#pragma once

#include "model/core/result.h"
#include "symbolize/object/gobuildinfo.h"
#include "symbolize/object/gopclntab.h"
#include "symbolize/engines/engine.h"

#include <memory>
#include <string>
#include <vector>

namespace symflame::symbolize {

class GoEngine final : public SymbolizerEngine {
public:
    /// Finds and checks the gopclntab of binary. Errors (NotFound) when it has none, or the
    /// table's header is malformed.
    static model::Result<std::unique_ptr<GoEngine>> open(ElfFilePtr binary, const EngineOptions& options);

    model::Status symbolize(
        std::span<const uint64_t> addresses, SymbolizedAddresses& out, model::Progress* progress) override;
    DebugSource source() const override { return DebugSource::GoPclntab; }
    const char* engineName() const override { return "gopclntab"; }
    size_t warningCount() const override { return m_warningCount; }
    std::vector<std::string> warnings() const override { return m_warnings; }

    const GoPclntab& table() const { return m_table; }
    GoPclntabOrigin origin() const { return m_origin; }
    /// The Go version from .go.buildinfo ("go1.19.8"); empty when it could not be read.
    const std::string& goVersion() const { return m_goVersion; }
    /// One line for reports: "gopclntab (Go 1.18 layout, found by section), go1.19.8, N functions".
    std::string description() const override;

private:
    void elideWrappers(std::vector<GoFrame>& frames) const;

    GoEngine(ElfFilePtr binary, GoPclntab table)
        : m_binary(std::move(binary))
        , m_table(std::move(table))
    {
    }

    ElfFilePtr m_binary; // keeps the table's bytes mapped
    GoPclntab m_table;
    GoPclntabOrigin m_origin = GoPclntabOrigin::Section;
    std::string m_goVersion;
    size_t m_maxWarnings = 20;
    bool m_elideWrappers = false;
    size_t m_warningCount = 0;
    std::vector<std::string> m_warnings;
};

} // namespace symflame::symbolize
