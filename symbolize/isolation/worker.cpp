#include "symbolize/isolation/worker.h"

#include "symbolize/engines/openengine.h"
#include "symbolize/isolation/protocol.h"

#include <cerrno>
#include <cstdlib>
#include <memory>

#include <unistd.h>

namespace symflame::symbolize {

namespace {

// Blocking reads and writes on the worker's stdin and stdout.

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

} // namespace

int runSymbolizeWorker(int in, int out)
{
    std::unique_ptr<SymbolizerEngine> engine;
    std::unique_ptr<SymbolizedAddresses> current; // the answers of the parent's current call
    protocol::AnswersSent sent;
    for (;;) {
        char header[protocol::kHeaderSize];
        bool eof = false;
        if (!readFull(in, header, sizeof header, &eof))
            break;
        const protocol::Header h = protocol::readHeader(std::string_view(header, sizeof header));
        std::string payload(h.length, '\0');
        if (!readFull(in, payload.data(), h.length, nullptr))
            return 3;
        if (h.type == protocol::Open && !engine) {
            LocateResult located;
            EngineOptions options;
            protocol::OpenedReply reply;
            if (model::Status st = protocol::decodeOpen(payload, located, options); !st) {
                reply.error = st.error().toString();
            } else if (auto opened = openEngine(located, options); !opened) {
                reply.error = opened.error().toString();
            } else {
                engine = std::move(*opened);
                reply.ok = true;
                reply.source = engine->source();
                reply.engine = engine->engineName();
                reply.description = engine->description();
            }
            if (!writeFull(out, protocol::frame(protocol::Opened, protocol::encodeOpened(reply))))
                return 3;
            if (!engine)
                return 0;
        } else if (h.type == protocol::Lookup && engine) {
            auto request = protocol::decodeLookup(payload);
            if (!request || (!request->fresh && !current))
                return 3;
            // The batches of one parent call share one output (its strings and functions are
            // sent once). A new output is allocated while the last one still exists:
            // DwarfEngine keeps per-output caches keyed by the output's address, and an
            // output that reused the last one's address would get the last one's string ids.
            if (request->fresh) {
                auto next = std::make_unique<SymbolizedAddresses>();
                current.swap(next);
                next.reset();
                sent = protocol::AnswersSent {};
            }
            std::string reply;
            if (model::Status st = engine->symbolize(request->addresses, *current, nullptr); st) {
                reply = protocol::encodeAnswers(*current, engine->warningCount(), engine->warnings(), sent);
            } else {
                reply = protocol::encodeAnswersError(st.error().message);
                current.reset();
            }
            if (!writeFull(out, protocol::frame(protocol::Answers, reply)))
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

} // namespace symflame::symbolize
