#include "symbolize/isolation/isolatedengine.h"

#include "symbolize/engines/openengine.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>
#include <unordered_map>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;

namespace {

enum MessageType : uint32_t { Open = 1, Lookup = 2, Opened = 3, Answers = 4 };

constexpr uint32_t kProtocolVersion = 2;
/// A worker's message longer than this is taken for garbage (a batch's answers are far smaller).
constexpr uint32_t kMaxReply = 512u << 20;

class Writer {
public:
    void u8(uint8_t v) { m_s.push_back(char(v)); }
    void u32(uint32_t v) { m_s.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void u64(uint64_t v) { m_s.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void str(std::string_view s)
    {
        u32(static_cast<uint32_t>(s.size()));
        m_s.append(s);
    }
    void raw(const void* p, size_t n) { m_s.append(static_cast<const char*>(p), n); }
    std::string& data() { return m_s; }

private:
    std::string m_s;
};

/// Bounds-checked: after the first read past the end, ok() is false and reads give zeros.
class Reader {
public:
    explicit Reader(std::string_view s)
        : m_s(s)
    {
    }
    bool ok() const { return m_ok; }
    bool atEnd() const { return m_pos == m_s.size(); }
    uint8_t u8()
    {
        uint8_t v = 0;
        take(&v, 1);
        return v;
    }
    uint32_t u32()
    {
        uint32_t v = 0;
        take(&v, sizeof v);
        return v;
    }
    uint64_t u64()
    {
        uint64_t v = 0;
        take(&v, sizeof v);
        return v;
    }
    /// A u32 length, then that many bytes (bytes() below).
    std::string_view str()
    {
        const uint32_t n = u32();
        return bytes(n);
    }
    /// n bytes in place, or empty (and not ok) when fewer are left.
    std::string_view bytes(size_t n)
    {
        if (!m_ok || n > m_s.size() - m_pos) {
            m_ok = false;
            return {};
        }
        std::string_view v = m_s.substr(m_pos, n);
        m_pos += n;
        return v;
    }

private:
    void take(void* p, size_t n)
    {
        if (!m_ok || n > m_s.size() - m_pos) {
            m_ok = false;
            return;
        }
        std::memcpy(p, m_s.data() + m_pos, n);
        m_pos += n;
    }
    std::string_view m_s;
    size_t m_pos = 0;
    bool m_ok = true;
};

std::string message(uint32_t type, std::string payload)
{
    Writer w;
    w.u32(type);
    w.u32(static_cast<uint32_t>(payload.size()));
    w.data() += payload;
    return std::move(w.data());
}

// --- the worker's side: blocking reads and writes on its stdin and stdout

bool readFull(int fd, char* p, size_t n, bool* eofAtStart)
{
    size_t done = 0;
    while (done < n) {
        const ssize_t r = ::read(fd, p + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (eofAtStart)
                *eofAtStart = r == 0 && done == 0;
            return false;
        }
        done += size_t(r);
    }
    return true;
}

bool writeFull(int fd, const std::string& s)
{
    size_t done = 0;
    while (done < s.size()) {
        const ssize_t r = ::write(fd, s.data() + done, s.size() - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        done += size_t(r);
    }
    return true;
}

// The files of a LocateResult, each sent once (fields that share a file share it in the worker
// too: engines compare them).
struct FileTable {
    std::vector<ElfFilePtr> files;
    int32_t indexOf(const ElfFilePtr& f)
    {
        if (!f)
            return -1;
        for (size_t i = 0; i < files.size(); ++i)
            if (files[i] == f)
                return int32_t(i);
        files.push_back(f);
        return int32_t(files.size() - 1);
    }
};

std::string encodeOpen(const LocateResult& r, const EngineOptions& options)
{
    FileTable table;
    const int32_t fields[] = { table.indexOf(r.binary), table.indexOf(r.dwarf), table.indexOf(r.symbols),
        table.indexOf(r.supplementary), table.indexOf(r.dynamicSymbols) };
    Writer w;
    w.u32(kProtocolVersion);
    w.u8(options.demangle);
    w.u8(options.elideGoWrappers);
    w.u32(static_cast<uint32_t>(options.maxWarnings));
    w.u8(uint8_t(r.status));
    w.u8(uint8_t(r.source));
    w.u8(uint8_t(r.symbolKind));
    w.u8(r.unverified);
    w.u8(r.binaryDownloaded);
    for (const std::string* s : { &r.recordedPath, &r.wantedBuildId, &r.wantedHtlHash, &r.binaryPath, &r.mismatchPath,
             &r.mismatchBuildId, &r.dwarfPath, &r.supplementaryPath, &r.supplementaryProblem })
        w.str(*s);
    w.u32(static_cast<uint32_t>(r.tried.size()));
    for (const std::string& t : r.tried)
        w.str(t);
    w.u32(static_cast<uint32_t>(table.files.size()));
    for (const ElfFilePtr& f : table.files) {
        // A mapped file is opened again by path; bytes held in memory (MiniDebugInfo's
        // decompressed ELF) are sent.
        const bool mapped = f->file()->inode() != 0;
        w.u8(mapped ? 1 : 2);
        w.str(f->path());
        if (!mapped) {
            w.u64(f->bytes().size());
            w.raw(f->bytes().data(), f->bytes().size());
        }
    }
    for (int32_t i : fields)
        w.u32(uint32_t(i));
    return std::move(w.data());
}

// Rebuilds the LocateResult in the worker; false with *error set when a file can't be read.
bool decodeOpen(Reader& in, LocateResult& r, EngineOptions& options, std::string* error)
{
    if (in.u32() != kProtocolVersion) {
        *error = "the debug info reader speaks another protocol version (not the same build of symflame)";
        return false;
    }
    options.demangle = in.u8() != 0;
    options.elideGoWrappers = in.u8() != 0;
    options.maxWarnings = in.u32();
    r.status = LocateStatus(in.u8());
    r.source = DebugSource(in.u8());
    r.symbolKind = SymbolTable::Kind(in.u8());
    r.unverified = in.u8() != 0;
    r.binaryDownloaded = in.u8() != 0;
    for (std::string* s : { &r.recordedPath, &r.wantedBuildId, &r.wantedHtlHash, &r.binaryPath, &r.mismatchPath,
             &r.mismatchBuildId, &r.dwarfPath, &r.supplementaryPath, &r.supplementaryProblem })
        *s = std::string(in.str());
    const uint32_t tried = in.u32();
    for (uint32_t i = 0; i < tried && in.ok(); ++i)
        r.tried.emplace_back(in.str());
    const uint32_t count = in.u32();
    std::vector<ElfFilePtr> files;
    for (uint32_t i = 0; i < count && in.ok(); ++i) {
        const uint8_t kind = in.u8();
        const std::string path(in.str());
        model::Result<ElfFilePtr> elf = makeError(ErrorCode::InvalidInput, "malformed open message");
        if (kind == 1) {
            elf = ElfFile::open(path);
        } else {
            const uint64_t size = in.u64();
            const std::string_view bytes = in.bytes(size);
            if (!in.ok())
                break;
            elf = ElfFile::parse(MappedFile::fromBytes(std::vector<uint8_t>(bytes.begin(), bytes.end()), path));
        }
        if (!elf) {
            *error = elf.error().toString();
            return false;
        }
        files.push_back(*elf);
    }
    ElfFilePtr* fields[] = { &r.binary, &r.dwarf, &r.symbols, &r.supplementary, &r.dynamicSymbols };
    for (ElfFilePtr* f : fields) {
        const uint32_t i = in.u32();
        if (i != UINT32_MAX) {
            if (i >= files.size()) {
                *error = "malformed open message";
                return false;
            }
            *f = files[i];
        }
    }
    if (!in.ok() || !in.atEnd()) {
        *error = "malformed open message";
        return false;
    }
    return true;
}

void encodeWarnings(Writer& w, const SymbolizerEngine& engine)
{
    w.u64(engine.warningCount());
    const std::vector<std::string> warnings = engine.warnings();
    w.u32(static_cast<uint32_t>(warnings.size()));
    for (const std::string& s : warnings)
        w.str(s);
}

// What the parent has of the worker's current output: the strings, functions and addresses
// sent so far. A batch's answer carries only what is new.
struct Sent {
    size_t strings = 0, functions = 0, addresses = 0;
};

std::string encodeAnswers(const SymbolizedAddresses& a, const SymbolizerEngine& engine, Sent& sent)
{
    Writer w;
    w.u8(1);
    const model::StringTable& strings = a.strings();
    w.u32(static_cast<uint32_t>(strings.size() - sent.strings));
    for (size_t i = sent.strings; i < strings.size(); ++i)
        w.str(strings.get(model::StringId(uint32_t(i))));
    w.u32(static_cast<uint32_t>(a.functions().size() - sent.functions));
    for (size_t i = sent.functions; i < a.functions().size(); ++i) {
        const SymbolizedFunction& f = a.function(uint32_t(i));
        w.u32(f.name.value);
        w.u32(f.systemName.value);
        w.u32(f.file.value);
        w.u32(f.startLine);
    }
    w.u32(static_cast<uint32_t>(a.size() - sent.addresses));
    for (size_t i = sent.addresses; i < a.size(); ++i) {
        const auto frames = a.frames(i);
        w.u32(static_cast<uint32_t>(frames.size()));
        w.raw(frames.data(), frames.size() * sizeof(SymbolizedFrame));
    }
    sent = Sent { strings.size(), a.functions().size(), a.size() };
    encodeWarnings(w, engine);
    return std::move(w.data());
}

std::string signalName(int sig)
{
    const char* abbrev = sigabbrev_np(sig);
    return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

} // namespace

static_assert(sizeof(SymbolizedFrame) == 12, "frames are sent as three u32");

int runSymbolizeWorker(int in, int out)
{
    std::unique_ptr<SymbolizerEngine> engine;
    std::unique_ptr<SymbolizedAddresses> current; // the answers of the parent's current call
    Sent sent;
    for (;;) {
        char header[8];
        bool eof = false;
        if (!readFull(in, header, sizeof header, &eof))
            break;
        uint32_t type, length;
        std::memcpy(&type, header, 4);
        std::memcpy(&length, header + 4, 4);
        std::string payload(length, '\0');
        if (!readFull(in, payload.data(), length, nullptr))
            return 3;
        Reader r(payload);
        if (type == Open && !engine) {
            LocateResult located;
            EngineOptions options;
            std::string error;
            Writer w;
            if (decodeOpen(r, located, options, &error)) {
                auto opened = openEngine(located, options);
                if (opened)
                    engine = std::move(*opened);
                else
                    error = opened.error().toString();
            }
            w.u8(engine ? 1 : 0);
            if (engine) {
                w.u8(uint8_t(engine->source()));
                w.str(engine->engineName());
                w.str(engine->description());
            } else {
                w.str(error);
            }
            if (!writeFull(out, message(Opened, std::move(w.data()))))
                return 3;
            if (!engine)
                return 0;
        } else if (type == Lookup && engine) {
            const bool fresh = r.u8() != 0;
            const uint32_t n = r.u32();
            const std::string_view raw = r.bytes(size_t(n) * 8);
            if (!r.ok() || !r.atEnd() || (!fresh && !current))
                return 3;
            std::vector<uint64_t> addresses(n);
            if (n > 0)
                std::memcpy(addresses.data(), raw.data(), raw.size());
            // The batches of one parent call share one output (its strings and functions are
            // sent once). A new output is allocated while the last one still exists:
            // DwarfEngine keeps per-output caches keyed by the output's address, and an
            // output that reused the last one's address would get the last one's string ids.
            if (fresh) {
                auto next = std::make_unique<SymbolizedAddresses>();
                current.swap(next);
                next.reset();
                sent = Sent {};
            }
            std::string reply;
            if (model::Status st = engine->symbolize(addresses, *current, nullptr); st) {
                reply = encodeAnswers(*current, *engine, sent);
            } else {
                Writer w;
                w.u8(0);
                w.str(st.error().message);
                reply = std::move(w.data());
                current.reset();
            }
            if (!writeFull(out, message(Answers, std::move(reply))))
                return 3;
        } else {
            return 3;
        }
    }
    // The end of input: the parent is done. Exit at once: freeing a big binary's parsed units one
    // by one only delays the exit the parent waits for (and a leak checker has nothing to say
    // about memory the exit hands back).
    std::_Exit(0);
}

// --- the parent's side

model::Result<std::unique_ptr<IsolatedEngine>> IsolatedEngine::open(
    const LocateResult& located, const EngineOptions& engine, const IsolationOptions& isolation)
{
    std::unique_ptr<IsolatedEngine> s(new IsolatedEngine());
    if (model::Status st = s->start(located, engine, isolation); !st)
        return st.error();
    return s;
}

IsolatedEngine::~IsolatedEngine()
{
    stop();
}

void IsolatedEngine::stop()
{
    if (m_socket >= 0) {
        ::close(m_socket); // the worker reads the end of its input and exits
        m_socket = -1;
    }
    if (m_stderr >= 0) {
        ::close(m_stderr);
        m_stderr = -1;
    }
    if (m_pid > 0) {
        int status = 0;
        bool reaped = false;
        for (int i = 0; i < 100 && !reaped; ++i) {
            const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
            reaped = r == m_pid || (r < 0 && errno != EINTR);
            if (!reaped)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        if (!reaped) {
            ::kill(m_pid, SIGKILL);
            while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) { }
        }
        m_pid = -1;
    }
}

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

/// This process's environment for the worker. In an AddressSanitizer build (the test suite's
/// sanitized run) the worker leaves deadly signals to the kernel, so that a third-party parser
/// crashing on a bad file ends the worker by that signal, as in a release build, instead of as a
/// sanitizer report with its own exit code; the sanitizer still reports memory errors it finds.
std::vector<std::string> workerEnvironment()
{
    std::vector<std::string> env;
    bool asanOptions = false;
    for (char** e = environ; e && *e; ++e) {
        env.emplace_back(*e);
        if (kAddressSanitizer && env.back().starts_with("ASAN_OPTIONS=")) {
            env.back() += ":handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0";
            asanOptions = true;
        }
    }
    if (kAddressSanitizer && !asanOptions)
        env.emplace_back("ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0");
    return env;
}

} // namespace

model::Status IsolatedEngine::start(
    const LocateResult& located, const EngineOptions& engine, const IsolationOptions& isolation)
{
    m_file = !located.dwarfPath.empty() ? located.dwarfPath : located.binaryPath;
    m_timeout = std::max(1u, isolation.timeoutSeconds);
    const std::string worker = resolveWorkerPath(isolation);

    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return makeError(ErrorCode::Io, "cannot start the debug info reader: " + systemErrorText(errno));
    int err[2];
    if (::pipe2(err, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(sv[0]);
        ::close(sv[1]);
        return makeError(ErrorCode::Io, "cannot start the debug info reader: " + systemErrorText(e));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sv[1], 0);
    posix_spawn_file_actions_adddup2(&actions, sv[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    // Nothing else of this process goes to the worker: an inherited socket or pipe end (a
    // download's connection, another worker's socket) would stay open as long as the worker runs.
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGSEGV);
    sigaddset(&defaults, SIGBUS);
    sigaddset(&defaults, SIGABRT);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char arg[] = "--symbolize-worker";
    char* argv[] = { const_cast<char*>(worker.c_str()), arg, nullptr };
    std::vector<std::string> envStrings = workerEnvironment();
    std::vector<char*> envp;
    envp.reserve(envStrings.size() + 1);
    for (std::string& e : envStrings)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, worker.c_str(), &actions, &attr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(sv[1]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(sv[0]);
        ::close(err[0]);
        return makeError(
            ErrorCode::Io, "cannot start the debug info reader " + worker + ": " + systemErrorText(rc), m_file);
    }
    m_pid = pid;
    m_socket = sv[0];
    m_stderr = err[0];
    ::fcntl(m_socket, F_SETFL, ::fcntl(m_socket, F_GETFL) | O_NONBLOCK);
    ::fcntl(m_stderr, F_SETFL, ::fcntl(m_stderr, F_GETFL) | O_NONBLOCK);

    std::string reply;
    if (model::Status st = exchange(Open, encodeOpen(located, engine), Opened, &reply, nullptr); !st)
        return st;
    Reader r(reply);
    if (r.u8() == 0) {
        const std::string error(r.str());
        if (!r.ok())
            return fail("sent a malformed answer");
        stop();
        m_failure = error;
        return makeError(ErrorCode::InvalidInput, error);
    }
    m_source = DebugSource(r.u8());
    m_engine = std::string(r.str());
    m_description = std::string(r.str());
    if (!r.ok() || !r.atEnd() || m_source > DebugSource::DynamicSymbolTable)
        return fail("sent a malformed answer");
    return model::Status::success();
}

model::Error IsolatedEngine::fail(std::string why)
{
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        int status = 0;
        while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) { }
        m_pid = -1;
    }
    stop();
    m_failure = "debug info reader " + why + " on " + m_file + "; other binaries unaffected";
    return makeError(ErrorCode::InvalidInput, m_failure);
}

model::Error IsolatedEngine::workerEnded(const char* what)
{
    // The worker closed its end: it is exiting, or has died. Its last words first.
    for (int i = 0; i < 40 && m_stderr >= 0; ++i) {
        char buf[4096];
        const ssize_t n = ::read(m_stderr, buf, sizeof buf);
        if (n > 0) {
            m_stderrTail.append(buf, size_t(n));
        } else if (n == 0) {
            break;
        } else if (errno == EAGAIN) {
            pollfd p { m_stderr, POLLIN, 0 };
            ::poll(&p, 1, 5);
        } else if (errno != EINTR) {
            break;
        }
    }
    int status = 0;
    bool reaped = false;
    for (int i = 0; i < 400 && !reaped; ++i) {
        const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
        reaped = r == m_pid;
        if (r < 0 && errno != EINTR)
            break;
        if (!reaped)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::string why;
    if (!reaped) {
        why = std::string("stopped answering ") + what;
    } else {
        m_pid = -1;
        if (WIFSIGNALED(status))
            why = (WTERMSIG(status) == SIGKILL ? "was killed (" : "crashed (") + signalName(WTERMSIG(status)) + ")";
        else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
            why = "exited with status " + std::to_string(WEXITSTATUS(status));
        else
            why = std::string("ended ") + what;
    }
    // The last line the worker wrote (LLVM's fatal errors say what went wrong), or a sanitizer's
    // one-line summary (a sanitizer build's worker reports a crash and exits with status 1).
    std::string_view tail = m_stderrTail;
    if (const size_t summary = tail.rfind("SUMMARY: "); summary != std::string_view::npos)
        tail = tail.substr(summary, tail.find('\n', summary) - summary);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r' || tail.back() == ' '))
        tail.remove_suffix(1);
    if (const size_t nl = tail.rfind('\n'); nl != std::string_view::npos)
        tail.remove_prefix(nl + 1);
    if (!tail.empty())
        why += " (" + std::string(tail.substr(0, 200)) + ")";
    return fail(why);
}

model::Status IsolatedEngine::exchange(
    uint32_t type, const std::string& payload, uint32_t replyType, std::string* reply, const std::atomic<bool>* cancel)
{
    const std::string out = message(type, payload);
    return transfer(&out, replyType, reply, cancel);
}

model::Status IsolatedEngine::transfer(
    const std::string* out, uint32_t replyType, std::string* reply, const std::atomic<bool>* cancel)
{
    if (!m_failure.empty())
        return makeError(m_failureCode, m_failure);
    const char* what = m_engine.empty() ? "while opening the file" : "while looking up addresses";
    const size_t outSize = out ? out->size() : 0;
    size_t sent = 0;
    bool sendFailed = false;
    std::string in;
    uint32_t length = 0;
    bool haveHeader = false;
    using Clock = std::chrono::steady_clock;
    auto deadline = Clock::now() + std::chrono::seconds(m_timeout);
    std::vector<char> buf(1 << 16);
    for (;;) {
        if (sent == outSize && !reply)
            return model::Status::success(); // a send only: done
        const short events = short((reply ? POLLIN : 0) | (sent < outSize ? POLLOUT : 0));
        pollfd fds[2] = { { m_socket, events, 0 }, { m_stderr, POLLIN, 0 } };
        const int r = ::poll(fds, m_stderr >= 0 ? 2 : 1, 100);
        if (r < 0 && errno != EINTR)
            return fail("could not be waited for (" + systemErrorText(errno) + ")");
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            fail("cancelled");
            m_failure = "symbolization cancelled";
            m_failureCode = ErrorCode::Cancelled;
            return makeError(ErrorCode::Cancelled, m_failure);
        }
        bool progress = false;
        if (r > 0 && m_stderr >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::read(m_stderr, buf.data(), buf.size());
            if (n > 0) {
                m_stderrTail.append(buf.data(), size_t(n));
                if (m_stderrTail.size() > 4096)
                    m_stderrTail.erase(0, m_stderrTail.size() - 2048);
            } else if (n == 0) {
                ::close(m_stderr);
                m_stderr = -1;
            }
        }
        if (r > 0 && sent < outSize && (fds[0].revents & (POLLOUT | POLLHUP | POLLERR))) {
            const ssize_t n = ::send(m_socket, out->data() + sent, outSize - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0) {
                sent += size_t(n);
                progress = true;
            } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                if (!reply)
                    return workerEnded(what);
                // The worker is gone: what it wrote before it went, and how it ended, say why.
                sent = outSize;
                sendFailed = true;
            }
        }
        if (r > 0 && reply && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::recv(m_socket, buf.data(), buf.size(), MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                return workerEnded(what);
            if (n > 0) {
                in.append(buf.data(), size_t(n));
                progress = true;
                if (!haveHeader && in.size() >= 8) {
                    uint32_t t;
                    std::memcpy(&t, in.data(), 4);
                    std::memcpy(&length, in.data() + 4, 4);
                    if (t != replyType || length > kMaxReply || sent < outSize || sendFailed)
                        return fail("sent a malformed answer");
                    haveHeader = true;
                }
                if (haveHeader && in.size() >= 8 + size_t(length)) {
                    if (in.size() > 8 + size_t(length))
                        return fail("sent a malformed answer");
                    *reply = in.substr(8);
                    return model::Status::success();
                }
            }
        }
        const auto now = Clock::now();
        if (progress)
            deadline = now + std::chrono::seconds(m_timeout);
        else if (now >= deadline)
            return fail("timed out after " + std::to_string(m_timeout) + " s");
    }
}

model::Status IsolatedEngine::symbolize(
    std::span<const uint64_t> addresses, SymbolizedAddresses& out, const std::atomic<bool>* cancel)
{
    if (!m_failure.empty())
        return makeError(m_failureCode, m_failure);
    if (addresses.empty())
        return model::Status::success();
    const auto request = [&](size_t begin) {
        const size_t n = std::min(kBatch, addresses.size() - begin);
        Writer w;
        w.u8(begin == 0); // a new output: the worker starts new string and function tables
        w.u32(static_cast<uint32_t>(n));
        w.raw(addresses.data() + begin, n * sizeof(uint64_t));
        return message(Lookup, std::move(w.data()));
    };
    // The worker's strings and functions of this call, as ids of out (they come once each).
    std::vector<model::StringId> strings;
    std::vector<uint32_t> functions;
    std::string reply;
    std::string next = request(0);
    if (model::Status st = transfer(&next, 0, nullptr, cancel); !st)
        return st;
    // (transfer() watches cancel: it kills the worker, whose answers then never come.)
    for (size_t begin = 0; begin < addresses.size(); begin += kBatch) {
        const size_t n = std::min(kBatch, addresses.size() - begin);
        if (model::Status st = transfer(nullptr, Answers, &reply, cancel); !st)
            return st;
        // The next batch goes out before this one is read, so that the worker works meanwhile.
        if (begin + kBatch < addresses.size()) {
            next = request(begin + kBatch);
            if (model::Status st = transfer(&next, 0, nullptr, cancel); !st)
                return st;
        }
        // The batch's answers, checked as they are taken over: every index within its table.
        Reader r(reply);
        if (r.u8() == 0) {
            const std::string error(r.str());
            if (!r.ok())
                return fail("sent a malformed answer");
            // The engine failed: the worker goes (a batch may still be on its way), the module
            // keeps the engine's reason.
            fail(error);
            m_failure = error;
            return makeError(ErrorCode::InvalidInput, error);
        }
        const uint32_t newStrings = r.u32();
        if (!r.ok() || newStrings > reply.size())
            return fail("sent a malformed answer");
        for (uint32_t i = 0; i < newStrings && r.ok(); ++i)
            strings.push_back(out.intern(r.str()));
        const uint32_t newFunctions = r.u32();
        if (!r.ok() || newFunctions > reply.size())
            return fail("sent a malformed answer");
        for (uint32_t i = 0; i < newFunctions && r.ok(); ++i) {
            const uint32_t name = r.u32(), systemName = r.u32(), file = r.u32(), startLine = r.u32();
            if (name >= strings.size() || systemName >= strings.size() || file >= strings.size())
                return fail("sent a malformed answer");
            functions.push_back(
                out.addFunction(SymbolizedFunction { strings[name], strings[systemName], strings[file], startLine }));
        }
        if (r.u32() != n || !r.ok())
            return fail("sent a malformed answer");
        for (size_t i = 0; i < n; ++i) {
            const uint32_t frames = r.u32();
            if (!r.ok() || frames == 0)
                return fail("sent a malformed answer");
            for (uint32_t k = 0; k < frames; ++k) {
                const uint32_t function = r.u32(), line = r.u32(), column = r.u32();
                if (!r.ok() || function >= functions.size())
                    return fail("sent a malformed answer");
                out.addFrame(functions[function], line, column);
            }
            out.endAddress();
        }
        m_warningCount = r.u64();
        const uint32_t warnings = r.u32();
        if (!r.ok() || warnings > reply.size())
            return fail("sent a malformed answer");
        m_warnings.clear();
        for (uint32_t i = 0; i < warnings && r.ok(); ++i)
            m_warnings.emplace_back(r.str());
        if (!r.ok() || !r.atEnd())
            return fail("sent a malformed answer");
    }
    return model::Status::success();
}

} // namespace symflame::symbolize
