#include "app/debuginfodargs.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace symflame::app {

std::optional<symbolize::DebuginfodOptions> debuginfodOptionsFrom(const ParsedArgs& args, std::string* error)
{
    symbolize::DebuginfodOptions o;
    o.timeoutSeconds = symbolize::defaultDebuginfodTimeout(); // $DEBUGINFOD_TIMEOUT, else 10
    bool urlsGiven = false;
    for (const auto& [name, value] : args.options) {
        if (name == "debuginfod") {
            if (value.empty()) {
                *error = "--debuginfod needs a URL";
                return std::nullopt;
            }
            for (std::string& u : symbolize::parseDebuginfodUrls(value))
                o.urls.push_back(std::move(u));
            urlsGiven = true;
        } else if (name == "debuginfod-timeout") {
            const auto n = parseCount(value);
            if (!n || *n < 1 || *n > 86400) {
                *error = "--debuginfod-timeout wants seconds between 1 and 86400, not '" + value + "'";
                return std::nullopt;
            }
            o.timeoutSeconds = static_cast<int>(*n);
        } else if (name == "debuginfod-cache") {
            o.cacheDir = value;
        } else if (name == "downloads") {
            const auto n = parseCount(value);
            if (!n || *n < 1 || *n > 64) {
                *error = "--downloads wants a number between 1 and 64, not '" + value + "'";
                return std::nullopt;
            }
            o.parallelDownloads = static_cast<unsigned>(*n);
        }
    }
    if (!urlsGiven)
        if (const char* env = std::getenv("DEBUGINFOD_URLS"))
            o.urls = symbolize::parseDebuginfodUrls(env);
    o.offline = args.has("offline");
    return o;
}

bool isolationOptionsFrom(const ParsedArgs& args, symbolize::IsolationOptions* out, std::string* error)
{
    for (const auto& [name, value] : args.options) {
        if (name == "isolate") {
            if (!symbolize::parseIsolationPolicy(value, &out->policy)) {
                *error = "--isolate wants none, downloaded or all, not '" + value + "'";
                return false;
            }
        } else if (name == "isolate-timeout") {
            const auto n = parseCount(value);
            if (!n || *n < 1 || *n > 86400) {
                *error = "--isolate-timeout wants seconds between 1 and 86400, not '" + value + "'";
                return false;
            }
            out->timeoutSeconds = static_cast<unsigned>(*n);
        }
    }
    return true;
}

StderrProgress::StderrProgress(std::string prefix)
    : m_prefix(std::move(prefix))
    , m_enabled(::isatty(STDERR_FILENO) == 1)
{
}

StderrProgress::~StderrProgress()
{
    if (m_drawn)
        std::fputs("\r\033[K", stderr);
}

void StderrProgress::setProgress(uint64_t done, uint64_t total)
{
    m_done = done;
    m_total = total;
    draw(false);
}

void StderrProgress::setStage(std::string_view stage)
{
    m_stage = stage;
    draw(false);
}

void StderrProgress::draw(bool force)
{
    if (!m_enabled)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && m_drawn && now - m_last < std::chrono::milliseconds(100))
        return;
    m_last = now;
    m_drawn = true;
    std::string line = m_prefix + ": " + m_stage;
    if (m_total > 0)
        line += "  " + std::to_string(m_done) + "/" + std::to_string(m_total);
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
}

} // namespace symflame::app
