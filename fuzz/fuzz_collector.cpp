// Fuzz harness: files of the OpenTelemetry Collector's file exporter (JSON lines, length-prefixed
// protobuf requests), zstd-compressed or not: how the framing is told, the framing itself, each
// request through the OTLP reader; and zstd decompression on its own.
#include "model/io/otlp/otlp.h"
#include "model/io/zstd.h"

using namespace symflame::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::span<const uint8_t> input(data, size);
    DecompressLimits limits;
    limits.maxOutputBytes = 64u << 20;
    (void)unzstd(input, limits);
    std::vector<uint8_t> storage;
    auto raw = decompressIfCompressed(input, storage, limits);
    if (!raw)
        return 0;
    OtlpReadOptions options;
    options.limits = limits;
    const CollectorFraming told = collectorFraming(*raw);
    // Both framings on every input, not only the one told: the splitters see any bytes.
    for (CollectorFraming f : { CollectorFraming::LengthPrefixed, CollectorFraming::JsonLines }) {
        auto p = readOtlpCollector(*raw, f, options);
        if (p && f == told && p->profilesInFile.size() > 1) {
            options.profileIndex = p->profilesInFile.size() - 1;
            (void)readOtlpCollector(*raw, f, options);
            options.profileIndex = 0;
        }
    }
    return 0;
}
