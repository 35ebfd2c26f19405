// Build-time tool of the native demo: gives each mapping of a pprof profile the GNU build ID of
// its file, as eBPF profilers record it (gperftools' profiles carry none, and `go tool pprof`
// converts them without), so that the demo's binaries are matched and verified by build ID.
//
//   demo-addbuildids IN.pb.gz OUT.pb.gz
#include "model/io/profileio.h"
#include "symbolize/object/elffile.h"

#include <cstdio>
#include <string>

int main(int argc, char** argv)
{
    using namespace symflame;
    if (argc != 3) {
        std::fprintf(stderr, "usage: demo-addbuildids IN.pb.gz OUT.pb.gz\n");
        return 64;
    }
    auto loaded = model::loadProfile(argv[1]);
    if (!loaded) {
        std::fprintf(stderr, "demo-addbuildids: %s: %s\n", argv[1], loaded.error().message.c_str());
        return 1;
    }
    model::Profile p = std::move(loaded).value();
    int given = 0;
    for (model::Mapping& m : p.mappings) {
        const std::string file(p.str(m.file));
        if (file.empty() || !p.str(m.buildId).empty())
            continue;
        const auto elf = symbolize::ElfFile::open(file);
        if (!elf || (*elf)->buildId().empty())
            continue; // [vdso], a file gone: as a profiler that could not read it
        m.buildId = p.strings.intern((*elf)->buildId());
        ++given;
    }
    const model::Status saved = model::saveProfile(p, argv[2]);
    if (!saved) {
        std::fprintf(stderr, "demo-addbuildids: %s: %s\n", argv[2], saved.error().message.c_str());
        return 1;
    }
    std::printf("demo-addbuildids: %d mappings given their build ID\n", given);
    return 0;
}
