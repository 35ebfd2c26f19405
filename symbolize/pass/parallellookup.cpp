#include "symbolize/pass/parallellookup.h"

#include "symbolize/pass/answercache.h"

#include "model/core/parallel.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>

namespace symflame::symbolize {

namespace {

struct Shard {
    size_t module;
    size_t begin, end; // address indices
};

} // namespace

model::Result<std::vector<LookupOutcome>> lookupModules(
    std::span<const LookupModule> modules, const LookupOptions& options, model::Progress* progress)
{
    std::vector<LookupOutcome> outcomes(modules.size());
    unsigned nThreads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());

    // Shards: a module is cut so that every thread gets a few shards of it (for balance), but no
    // shard is smaller than minShardAddresses. Big modules first, so the last shards are small.
    uint64_t total = 0;
    std::vector<size_t> order(modules.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
        [&](size_t a, size_t b) { return modules[a].addresses.size() > modules[b].addresses.size(); });
    std::vector<Shard> shards;
    std::vector<size_t> shardsLeft(modules.size(), 0);
    std::vector<size_t> firstShard(modules.size(), 0);
    for (size_t m : order) {
        const size_t n = modules[m].addresses.size();
        total += n;
        const size_t minShard = std::max<size_t>(1, options.minShardAddresses);
        const size_t wanted = std::max<size_t>(1, std::min<size_t>(n / minShard, size_t(nThreads) * 4));
        const size_t per = (n + wanted - 1) / std::max<size_t>(1, wanted);
        firstShard[m] = shards.size();
        for (size_t b = 0; b < n || (n == 0 && b == 0); b += std::max<size_t>(1, per)) {
            shards.push_back(Shard { m, b, std::min(n, b + std::max<size_t>(1, per)) });
            ++shardsLeft[m];
            if (n == 0)
                break;
        }
    }
    std::vector<SymbolizedAddresses> shardAnswers(shards.size());
    nThreads = static_cast<unsigned>(std::min<size_t>(nThreads, shards.size()));

    std::atomic<size_t> next { 0 };
    model::CancelFlag cancel; // set here from progress; what the engines look at
    std::atomic<uint64_t> done { 0 };
    std::mutex mutex; // guards outcomes' error/source/engine/warnings and shardsLeft

    const auto finishModule = [&](size_t m) {
        // Called with mutex held, when the last shard of m is done.
        LookupOutcome& o = outcomes[m];
        if (!o.error.empty())
            return;
        o.ok = true;
        const size_t first = firstShard[m];
        size_t count = 0;
        while (first + count < shards.size() && shards[first + count].module == m)
            ++count;
        // The first shard's answers become the module's; the others are copied onto them.
        o.answers = std::move(shardAnswers[first]);
        if (count > 1) {
            for (size_t s = first + 1; s < first + count; ++s) {
                AnswerCopier copier(shardAnswers[s], o.answers);
                for (size_t i = 0; i < shardAnswers[s].size(); ++i)
                    copier.copy(i);
                shardAnswers[s] = SymbolizedAddresses();
            }
        }
    };

    const auto worker = [&] {
        size_t openedModule = SIZE_MAX;
        std::unique_ptr<SymbolizerEngine> engine;
        std::string openError;
        const auto closeEngine = [&] {
            if (engine && openedModule != SIZE_MAX) {
                std::lock_guard lock(mutex);
                LookupOutcome& o = outcomes[openedModule];
                o.warningCount += engine->warningCount();
                for (std::string& w : engine->warnings())
                    if (o.warnings.size() < options.module.maxWarnings)
                        o.warnings.push_back(std::move(w));
            }
            engine.reset();
        };
        for (;;) {
            const size_t s = next.fetch_add(1);
            if (s >= shards.size())
                break;
            const Shard& shard = shards[s];
            std::string error;
            if (cancel.isCancelled()) {
                error = "cancelled";
            } else {
                if (shard.module != openedModule) {
                    closeEngine();
                    openedModule = shard.module;
                    openError.clear();
                    auto opened = openModule(*modules[shard.module].located, options.module);
                    if (opened) {
                        engine = std::move(*opened);
                        std::lock_guard lock(mutex);
                        outcomes[shard.module].source = engine->source();
                        outcomes[shard.module].engine = engine->engineName();
                        outcomes[shard.module].engineDetail = engine->description();
                    } else {
                        openError = opened.error().toString();
                    }
                }
                if (!engine) {
                    error = openError;
                } else {
                    const auto addrs = modules[shard.module].addresses.subspan(shard.begin, shard.end - shard.begin);
                    if (model::Status st = engine->symbolize(addrs, shardAnswers[s], &cancel); !st)
                        error = st.error().message;
                }
            }
            done.fetch_add(shard.end - shard.begin, std::memory_order_relaxed);
            std::lock_guard lock(mutex);
            LookupOutcome& o = outcomes[shard.module];
            if (!error.empty() && o.error.empty())
                o.error = error;
            if (--shardsLeft[shard.module] == 0)
                finishModule(shard.module);
        }
        closeEngine();
    };

    if (progress)
        progress->setProgress(0, total);
    model::runThreads(nThreads, [&](unsigned) { worker(); }, [&] {
        if (!progress)
            return;
        if (progress->isCancelled())
            cancel.cancel();
        progress->setProgress(done.load(std::memory_order_relaxed), total);
    });
    if (cancel.isCancelled())
        return model::makeError(model::ErrorCode::Cancelled, "symbolization cancelled");
    return outcomes;
}

} // namespace symflame::symbolize
