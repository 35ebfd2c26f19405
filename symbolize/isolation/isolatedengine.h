// Containment of third-party debug info readers. LLVM's DWARF reader can be crashed by a crafted
// file (it walks the DIE tree recursively: a unit with a million nested DIEs overflows the stack,
// tests/isolation/deepdies.s), and nothing outside it can catch that in the same process. A module
// the isolation policy picks (policy.h: IsolationOptions) is therefore read by the same
// engine in a worker process: `symflame --symbolize-worker` (worker.h), started with posix_spawn,
// talking over a socket pair (the worker's stdin and stdout) in a compact binary protocol
// (protocol.h). This is the parent's side.
//
// The next batch is sent before the answers of the last are read, so the worker works while the
// parent takes them over. The parent waits with poll(): cancel kills the worker; a worker that sends
// nothing for the time limit is killed ("timed out after N s"); a worker that dies (signal, exit
// status) or sends something malformed fails its module with a message that says so and names the
// file. Other modules, and the process, go on.
#pragma once

#include "model/core/result.h"
#include "symbolize/engines/engine.h"
#include "symbolize/isolation/policy.h"

#include <sys/types.h>

#include <memory>
#include <string>

namespace symflame::symbolize {

/// An engine in a worker process. Not thread-safe (one per thread, as every engine).
class IsolatedEngine final : public SymbolizerEngine {
public:
    /// Starts the worker and opens the module's engine in it. Errors: the worker can't be started,
    /// the engine can't open the module (its own error), the worker died or timed out.
    static model::Result<std::unique_ptr<IsolatedEngine>> open(
        const LocateResult& located, const EngineOptions& engine, const IsolationOptions& isolation);
    ~IsolatedEngine() override;

    /// Looks the addresses up in the worker, a batch at a time. After the worker failed (crash,
    /// time limit, malformed answer) every call errors with the same message.
    model::Status symbolize(
        std::span<const uint64_t> addresses, SymbolizedAddresses& out, model::Progress* progress) override;
    DebugSource source() const override { return m_source; }
    const char* engineName() const override { return m_engine.c_str(); }
    std::string description() const override { return m_description; }
    size_t warningCount() const override { return m_warningCount; }
    std::vector<std::string> warnings() const override { return m_warnings; }

    /// The worker's process id while it runs, else -1 (tests use it to kill the worker).
    pid_t workerPid() const { return m_pid; }

    /// Addresses per Lookup message.
    static constexpr size_t kBatch = 4096;

private:
    IsolatedEngine() = default;
    struct Wire;
    model::Status start(const LocateResult& located, const EngineOptions& engine, const IsolationOptions& isolation);
    /// Sends one message and reads the reply of the expected type into *reply.
    model::Status exchange(uint32_t type, const std::string& payload, uint32_t replyType, std::string* reply,
        model::Progress* progress);
    /// Sends out (a whole message; null: nothing), then, when reply is given, reads one message
    /// of replyType into it, with the time limit, cancellation and the worker's end watched
    /// throughout.
    model::Status transfer(
        const std::string* out, uint32_t replyType, std::string* reply, model::Progress* progress);
    /// Kills and reaps the worker; the message says why the module failed.
    model::Error fail(std::string why);
    /// After the worker stopped talking: reaps it and says how it ended.
    model::Error workerEnded(const char* what);
    void stop();

    pid_t m_pid = -1;
    int m_socket = -1;
    int m_stderr = -1; ///< the worker's stderr; its last bytes go into messages
    std::string m_stderrTail;
    std::string m_file; ///< the file named in messages (the debug file, else the binary)
    unsigned m_timeout = 60;
    std::string m_failure; ///< set once the worker failed
    model::ErrorCode m_failureCode = model::ErrorCode::InvalidInput;
    DebugSource m_source = DebugSource::None;
    std::string m_engine;
    std::string m_description;
    size_t m_warningCount = 0;
    std::vector<std::string> m_warnings;
};

} // namespace symflame::symbolize
