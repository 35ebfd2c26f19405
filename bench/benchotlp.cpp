// symflame-benchotlp: reading the same samples as pprof and as OTLP. Takes a pprof profile (for
// example symflame-genprofile's 1M-sample one), writes it as pprof and as OTLP protobuf (1.10
// layout: one OTLP profile per sample type, sharing the dictionary), raw and gzip-compressed,
// then loads each file N times through model::loadProfile and prints the fastest wall and CPU
// time and the ratio OTLP/pprof. The OTLP profile read is the one of the pprof default sample
// type; its total and sample count are checked against the pprof read so a fast wrong answer
// does not pass unnoticed.
#include "model/io/fileio.h"
#include "model/io/gzip.h"
#include "model/io/otlp/otlp.h"
#include "model/io/pprof/pprof.h"
#include "model/io/profileio.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

using namespace symflame::model;

namespace {

double cpuNow()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Timing {
    double wall = 1e30, cpu = 1e30;
};

bool timeLoad(const std::string& path, size_t profileIndex, int repeat, Timing& best, Profile* out)
{
    for (int i = 0; i < repeat; ++i) {
        const auto w0 = std::chrono::steady_clock::now();
        const double c0 = cpuNow();
        LoadOptions o;
        o.profileIndex = profileIndex;
        auto r = loadProfile(path, o);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        const double cpu = cpuNow() - c0;
        if (!r) {
            std::fprintf(stderr, "%s\n", r.error().toString().c_str());
            return false;
        }
        best.wall = std::min(best.wall, wall);
        best.cpu = std::min(best.cpu, cpu);
        if (i == repeat - 1)
            *out = std::move(r).value();
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: symflame-benchotlp PPROF [--repeat N] [--dir D]\n");
        return 2;
    }
    const std::string input = argv[1];
    int repeat = 3;
    std::string dir = "/tmp";
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--repeat")
            repeat = std::max(1, std::atoi(argv[i + 1]));
        else if (a == "--dir")
            dir = argv[i + 1];
    }
    auto source = loadProfile(input);
    if (!source) {
        std::fprintf(stderr, "%s\n", source.error().toString().c_str());
        return 2;
    }
    const Profile& p = *source;
    const size_t type = p.defaultSampleType;
    const std::string base = dir + "/symflame-benchotlp";
    const std::vector<uint8_t> pprofRaw = encodePprof(p);
    const std::vector<uint8_t> otlpRaw = encodeOtlp(p);
    struct File {
        std::string path;
        bool otlp;
    };
    std::vector<File> files = { { base + ".pprof.pb", false }, { base + ".otlp.pb", true },
        { base + ".pprof.pb.gz", false }, { base + ".otlp.pb.gz", true } };
    const auto write = [](const std::string& path, const std::vector<uint8_t>& raw, bool gz) {
        std::vector<uint8_t> bytes = raw;
        if (gz)
            bytes = gzipCompress(raw, 1).value();
        if (Status s = writeFileAtomically(path, bytes); !s) {
            std::fprintf(stderr, "%s\n", s.error().toString().c_str());
            std::exit(2);
        }
        return bytes.size();
    };
    std::printf("%zu samples, %zu sample types (OTLP profile %zu read: %s)\n", p.sampleCount(), p.sampleTypes.size(),
        type, std::string(p.str(p.sampleTypes[type].type)).c_str());
    size_t sizes[4] = { write(files[0].path, pprofRaw, false), write(files[1].path, otlpRaw, false),
        write(files[2].path, pprofRaw, true), write(files[3].path, otlpRaw, true) };
    Timing t[4];
    for (size_t i = 0; i < 4; ++i) {
        Profile loaded;
        if (!timeLoad(files[i].path, files[i].otlp ? type : 0, repeat, t[i], &loaded))
            return 2;
        const size_t lt = files[i].otlp ? 0 : type;
        if (loaded.sampleCount() != p.sampleCount() || loaded.totalValue(lt) != p.totalValue(type)) {
            std::fprintf(stderr, "%s: read %zu samples, total %lld; want %zu, %lld\n", files[i].path.c_str(),
                loaded.sampleCount(), (long long)loaded.totalValue(lt), p.sampleCount(), (long long)p.totalValue(type));
            return 1;
        }
        std::printf("%-40s %10zu bytes  load %7.3f s wall %7.3f s cpu (best of %d)\n", files[i].path.c_str(), sizes[i],
            t[i].wall, t[i].cpu, repeat);
    }
    std::printf("OTLP/pprof raw:  %.2fx wall, %.2fx cpu\n", t[1].wall / t[0].wall, t[1].cpu / t[0].cpu);
    std::printf("OTLP/pprof gzip: %.2fx wall, %.2fx cpu\n", t[3].wall / t[2].wall, t[3].cpu / t[2].cpu);
    return 0;
}
