// imagepipe: the native demo's program. For a budget of CPU time (argv[1] seconds, default
// 1.5) it renders a procedural image (libm), blurs and measures it (libdemofilters.so),
// quantizes, run-length encodes and checksums it (libdemocodec.so), and sorts the tile scores
// (libc's qsort). Profiled by gperftools at build time: resources/demo/native/demo.cmake.
#include "codec.h"
#include "filters.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace {

double cpuSeconds()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// Interference of a few waves: sin, cos and exp from libm for every pixel.
demo::Image render(int width, int height, double t)
{
    demo::Image image { width, height, std::vector<float>(size_t(width) * height) };
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const double u = double(x) / width - 0.5, v = double(y) / height - 0.5;
            const double r = std::sqrt(u * u + v * v);
            const double value = 0.5 + 0.25 * std::sin(40 * r - t) * std::exp(-3 * r) + 0.25 * std::cos(13 * u + t) * std::sin(11 * v);
            image.pixels[size_t(y) * width + x] = float(value);
        }
    return image;
}

int byScore(const void* a, const void* b)
{
    const double x = *static_cast<const double*>(a), y = *static_cast<const double*>(b);
    return (x > y) - (x < y);
}

} // namespace

int main(int argc, char** argv)
{
    const double budget = argc > 1 ? std::atof(argv[1]) : 1.5;
    const double start = cpuSeconds();
    std::vector<double> scores;
    std::vector<unsigned char> encoded;
    uint32_t check = 0;
    for (int frame = 0; cpuSeconds() - start < budget; ++frame) {
        demo::Image image = render(320, 240, frame * 0.1);
        demo::boxBlur(image, 2 + frame % 4);
        scores.push_back(demo::sharpness(image));
        const std::vector<unsigned char> bytes = demo::quantize(image);
        encoded.resize(bytes.size() * 2);
        encoded.resize(democodec_encode(bytes.data(), bytes.size(), encoded.data()));
        check ^= democodec_checksum(encoded.data(), encoded.size());
        std::vector<double> sorted(scores);
        std::qsort(sorted.data(), sorted.size(), sizeof(double), byScore);
    }
    std::printf("imagepipe: %zu frames, checksum %08x\n", scores.size(), check);
    return 0;
}
