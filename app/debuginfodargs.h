// Command-line options shared by the commands that may contact debuginfod servers (symbolize,
// debuginfo fetch), and a progress line on stderr for long work.
#pragma once

#include "app/cmdline.h"
#include "model/core/progress.h"
#include "symbolize/locate/debuginfodclient.h"
#include "symbolize/pass/moduleloader.h"

#include <chrono>
#include <optional>
#include <string>

namespace symflame::app {

/// The option specs, to append to a command's own.
inline constexpr OptionSpec kDebuginfodOptionSpecs[] = {
    { "debuginfod", 0, true },
    { "offline", 0, false },
    { "debuginfod-timeout", 0, true },
    { "debuginfod-cache", 0, true },
    { "downloads", 0, true },
};

/// Servers: the --debuginfod URLs given, else those of $DEBUGINFOD_URLS; none with --offline.
/// Returns nullopt (and sets error) for a bad value.
std::optional<symbolize::DebuginfodOptions> debuginfodOptionsFrom(const ParsedArgs& args, std::string* error);

/// Which binaries are read in a worker process (symbolize, lookup, info).
inline constexpr OptionSpec kIsolationOptionSpecs[] = {
    { "isolate", 0, true },
    { "isolate-timeout", 0, true },
};

/// --isolate=none|downloaded|all and --isolate-timeout S into *out (left as they are when not
/// given); false with *error set for a bad value.
bool isolationOptionsFrom(const ParsedArgs& args, symbolize::IsolationOptions* out, std::string* error);

/// "stage done/total" redrawn on one stderr line, at most every 100 ms, when stderr is a
/// terminal; silent otherwise (scripts and tests read stderr for errors only).
class StderrProgress : public model::Progress {
public:
    explicit StderrProgress(std::string prefix);
    ~StderrProgress() override;
    void setProgress(uint64_t done, uint64_t total) override;
    void setStage(std::string_view stage) override;

private:
    void draw(bool force);
    std::string m_prefix;
    std::string m_stage;
    uint64_t m_done = 0, m_total = 0;
    bool m_enabled = false;
    bool m_drawn = false;
    std::chrono::steady_clock::time_point m_last {};
};

} // namespace symflame::app
