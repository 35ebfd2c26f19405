// symflame-fetchbench: fetches the debuginfo of every build ID listed in a file (one per line)
// from the debuginfod servers given, with N downloads at once (each worker its own client, as
// the symbolization pass does), and prints the wall time and how many arrived verified.
//
//   symflame-fetchbench --debuginfod URL --cache DIR --parallel N IDS.txt
#include "symbolize/locate/debuginfodclient.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using namespace symflame::symbolize;

int main(int argc, char** argv)
{
    DebuginfodOptions o;
    unsigned parallel = 1;
    std::string idsFile;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--debuginfod" && i + 1 < argc)
            o.urls.push_back(argv[++i]);
        else if (a == "--cache" && i + 1 < argc)
            o.cacheDir = argv[++i];
        else if (a == "--parallel" && i + 1 < argc)
            parallel = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
        else if (idsFile.empty() && a[0] != '-')
            idsFile = a;
        else {
            std::fprintf(stderr, "usage: symflame-fetchbench --debuginfod URL --cache DIR --parallel N IDS.txt\n");
            return 64;
        }
    }
    std::vector<std::string> ids;
    std::ifstream in(idsFile);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            ids.push_back(line);
    if (ids.empty() || o.urls.empty()) {
        std::fprintf(stderr, "symflame-fetchbench: no build IDs or no server\n");
        return 2;
    }
    applyDebuginfodEnvironment(o);
    std::atomic<size_t> next { 0 }, found { 0 };
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < parallel; ++t)
        pool.emplace_back([&] {
            auto client = DebuginfodClient::create();
            if (!client)
                return;
            for (size_t k; (k = next.fetch_add(1)) < ids.size();)
                if ((*client)->fetch(ids[k], FetchKind::Debuginfo).status == FetchStatus::Found)
                    ++found;
        });
    for (std::thread& t : pool)
        t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("parallel=%u fetched=%zu/%zu wall=%.3f s\n", parallel, found.load(), ids.size(), s);
    return found.load() == ids.size() ? 0 : 2;
}
