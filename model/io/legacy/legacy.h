// Readers of the legacy profile formats `go tool pprof` reads (google/pprof's
// profile/legacy_profile.go describes them): gperftools' binary CPU profile, heap/growth profiles,
// contention and mutex profiles, thread profiles and Go's count profiles. Each is read to the
// samples, locations, mappings and values `go tool pprof -proto -symbolize=none` converts it to,
// addresses only (Java's profiles name their frames): symbolization then works on it as on
// any pprof profile.
#pragma once

#include "model/core/profile.h"
#include "model/core/result.h"

#include <cstdint>
#include <span>

namespace symflame::model {

/// True when data starts with a gperftools CPU profile header: the machine words 0, 3, 0,
/// period > 0, 0, in 32- or 64-bit words of either byte order (the first of these four layouts
/// that fits, in pprof's order: 32-bit little, 32-bit big, 64-bit little, 64-bit big endian).
bool looksLikeGperftoolsCpu(std::span<const uint8_t> data);

/// Reads a gperftools CPU profile (gperftools' docs/cpuprofile-fileformat.html): the header,
/// records `count, depth, pc...` up to the end marker `0, 1, 0`, then the `/proc/self/maps`
/// text (its executable lines become mappings, with a build ID where the line has one in
/// pprof's `start-end file (@offset) buildid` form). As pprof does: non-leaf addresses are
/// return addresses less 1; a second frame that (nearly) every sample shares (the signal
/// handler's) is dropped, up to twice; a leaf duplicated as the next frame + 1 is dropped; the
/// main binary's mapping comes first. Sample types samples/count and cpu/nanoseconds
/// (count × period), period from the header's microseconds. Java CPU profiles (third header word
/// 1): addresses as they are, frames named by the text after the samples, no memory map (pprof's
/// javaCPUProfile). Errors: InvalidInput or Truncated, "gperftools cpu profile: ...".
Result<Profile> readGperftoolsCpu(std::span<const uint8_t> data);

/// True when the first line is a heap, growth or fragmentation profile header pprof accepts
/// (`heap profile: N: B [ N: B] @ heapprofile`, `@ heap_v2/RATE`, `@ heap/2RATE`, `@ growthz`...).
bool looksLikeHeapProfile(std::span<const uint8_t> data);

/// Reads a heap, growth or fragmentation profile as pprof's parseHeap does: sample types
/// objects/count and space/bytes, with alloc_objects and alloc_space first when the header's
/// allocation totals differ from the in-use ones; heap_v2 samples scaled up by the sampling
/// rate; every address less 1; a numeric label `bytes` (the block size); the memory map after a
/// `MAPPED_LIBRARIES:` or `--- Memory map: ---` line. Errors: InvalidInput, "heap profile: line
/// N: ...".
Result<Profile> readHeapProfile(std::span<const uint8_t> data);

/// True when the first line starts `--- contentionz `, `--- mutex:` or `--- contention:`.
bool looksLikeContentionProfile(std::span<const uint8_t> data);

/// Reads a contention or mutex profile as pprof's parseContention does: header lines `key = value`
/// (cycles/second, sampling period, ms since reset, discarded samples), then lines `delay count @
/// addresses`, then the memory map after its sentinel line. Sample types contentions/count and
/// delay/nanoseconds, period type contentions/count with the sampling period (1 by default);
/// counts multiplied by the period and delays (cycles) scaled to nanoseconds by period and
/// cycles/second, as pprof scales them; every address less 1. A `format` or `resolution` key (a
/// Java profile) hands the file to readJavaProfile, as pprof does. Errors: InvalidInput, "contention profile: line N: ...".
Result<Profile> readContentionProfile(std::span<const uint8_t> data);

/// True when the first line that is not blank or a comment holds `--- threadz N ---` or `---
/// Thread ID (name: NAME/TID) stack: ---`.
bool looksLikeThreadProfile(std::span<const uint8_t> data);

/// Reads a thread profile as pprof's parseThread does: one sample per thread (a thread `same as
/// previous thread`, or without addresses, adds 1 to the previous sample), the addresses of every
/// line of its stack (PC and creator lines alike), non-leaf addresses less 1, a leaf duplicated as
/// the next frame + 1 dropped; sample and period type thread/count. pprof needs the memory map
/// (or a `---- no stack trace for` line) after the last thread, and so does this. Errors:
/// InvalidInput, "thread profile: line N: ...".
Result<Profile> readThreadProfile(std::span<const uint8_t> data);

/// True when the first line that is not blank or a comment is `NAME profile: total N` (Go's
/// debug=1 goroutine and threadcreate profiles).
bool looksLikeGoCountProfile(std::span<const uint8_t> data);

/// Reads a Go count profile as pprof's parseGoCount does: lines `N @ 0xaddr...`, every address
/// less 1, sample and period type NAME/count. Errors: InvalidInput, "count profile: line N: ...".
Result<Profile> readGoCountProfile(std::span<const uint8_t> data);

/// True when the first line (ended by a newline) is `--- heapz 1 ---` or `--- contentionz 1 ---`.
bool looksLikeJavaProfile(std::span<const uint8_t> data);

/// Reads a Java heap or contention profile as pprof's parseJavaProfile does: `key = value`
/// attributes (format = java, resolution: the second sample type's unit, the contention sampling
/// period and ms since reset), samples `v1 v2 @ addresses` (values swapped to [v2, v1]; heap ones
/// scaled as a 512 KiB-sampled heap profile with a `bytes` label, contention ones multiplied by
/// the period), then lines `0xADDR function (file:line)` naming the locations (a named location
/// loses its address). readContentionProfile hands `--- contentionz 1 ---` files with Java
/// attributes here. Errors: InvalidInput, "java profile: line N: ...".
Result<Profile> readJavaProfile(std::span<const uint8_t> data);

} // namespace symflame::model
